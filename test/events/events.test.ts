import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventsWorkflowId } from '../../src/workflows/contracts/ids.js';
import { eventually, type Api } from '../helpers/http.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';
import { commitInto } from '../helpers/commit.js';

let platform: TestPlatform;
let admin: Api;

before(async () => {
  platform = await startPlatform({ EVENTS_CONTINUE_AS_NEW_AFTER: '10' });
  admin = await platform.admin();
});
after(() => platform.close());

async function workspace(): Promise<string> {
  return (await admin.post('/workspaces', { name: 'events' })).body.id;
}

async function create(ws: string, title: string): Promise<string> {
  const reply = await admin.post('/artifacts', { title, content_type: 'text/plain', content: title, collection_id: ws });
  assert.equal(reply.status, 201, reply.text);
  return reply.body.id;
}

interface RecordedEvent {
  kind: string;
  artifact_id: string;
  actor: string;
  changed?: string[];
}

async function events(ws: string): Promise<RecordedEvent[]> {
  const all: RecordedEvent[] = [];
  let cursor: string | null = null;
  do {
    const reply: { status: number; body: { items: never[]; next_cursor: string | null } } = await admin.get(
      `/workspaces/${ws}/events?limit=7${cursor ? `&cursor=${cursor}` : ''}`,
    );
    assert.equal(reply.status, 200);
    all.push(...reply.body.items);
    cursor = reply.body.next_cursor;
  } while (cursor);
  return all;
}

describe('workspace events', () => {
  it('records artifact_created, artifact_updated and artifact_deleted, most recent first', async () => {
    const ws = await workspace();
    const id = await create(ws, 'one');
    await admin.patch(`/artifacts/${id}`, { title: 'one again' });
    await admin.delete(`/artifacts/${id}`);
    const recorded = await eventually(
      async () => {
        const list = await events(ws);
        return list.length === 3 ? list : undefined;
      },
      20_000,
      'three events',
    );
    assert.deepEqual(
      recorded.map((e) => e.kind),
      ['artifact_deleted', 'artifact_updated', 'artifact_created'],
    );
    assert.ok(recorded.every((e) => e.artifact_id === id));
    assert.deepEqual(recorded[1]!.changed, ['title']);
    const me = (await admin.get('/workspaces')).body.items[0].owner_id;
    assert.ok(recorded.every((e) => e.actor === me));
  });

  it('runs one event workflow per workspace, findable in Temporal by WorkspaceId', async () => {
    const ws = await workspace();
    await create(ws, 'findable');
    const runs = await eventually(
      async () => {
        const found = [];
        for await (const run of platform.services.temporal.workflow.list({ query: `WorkspaceId = "${ws}"` })) found.push(run);
        return found.length > 0 ? found : undefined;
      },
      20_000,
      'the workflow in visibility',
    );
    assert.equal(runs[0]!.workflowId, eventsWorkflowId(ws));
    assert.equal(runs[0]!.type, 'workspaceEvents');
  });

  it('loses no event while the worker is down', async () => {
    const ws = await workspace();
    await create(ws, 'before');
    await eventually(async () => (await events(ws)).length === 1, 20_000, 'the first event');
    await platform.stopWorker();
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push(await create(ws, `while down ${i}`));
    await new Promise((r) => setTimeout(r, 500));
    assert.equal((await events(ws)).length, 1, 'nothing is recorded without a worker');
    await platform.startWorker();
    const recorded = await eventually(
      async () => {
        const list = await events(ws);
        return list.length === 6 ? list : undefined;
      },
      30_000,
      'all six events after the restart',
    );
    for (const id of ids) assert.ok(recorded.some((e) => e.artifact_id === id && e.kind === 'artifact_created'));
  });

  it('continues as new past its bound without losing events', async () => {
    const ws = await workspace();
    const ids = [];
    for (let i = 0; i < 25; i++) ids.push(await create(ws, `bulk ${i}`));
    const recorded = await eventually(
      async () => {
        const list = await events(ws);
        return list.length === 25 ? list : undefined;
      },
      60_000,
      '25 events',
    );
    assert.deepEqual(new Set(recorded.map((e) => e.artifact_id)), new Set(ids));
    const runs = await eventually(
      async () => {
        const found = [];
        for await (const run of platform.services.temporal.workflow.list({ query: `WorkflowId = "${eventsWorkflowId(ws)}"` }))
          found.push(run);
        return found.length >= 3 ? found : undefined;
      },
      20_000,
      'three runs',
    );
    assert.equal(runs.filter((r) => r.status.name === 'CONTINUED_AS_NEW').length, 2, 'runs of 10, 10 and 5 events');
  });

  it("shows a workspace's events only to those who can see the workspace", async () => {
    const ws = await workspace();
    const other = await platform.newUser();
    assert.equal((await other.get(`/workspaces/${ws}/events`)).status, 404);
    assert.equal((await admin.get('/workspaces/not-a-uuid/events')).status, 400);
  });

  it('emits nothing for the artifacts a commit makes in a collection', async () => {
    const collection = (await admin.post('/collections', { name: 'c' })).body.id;
    const [id] = await commitInto(admin, collection, [{ title: 'in a collection' }]);
    await new Promise((r) => setTimeout(r, 500));
    const stored = await platform.services.db.collection('events').countDocuments({ artifact_id: id });
    assert.equal(stored, 0);
  });
});
