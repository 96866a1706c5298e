// Automations (issue #21, SPEC §6.1), driven by calling the trigger with events built from real
// writes: the worker's own dispatch is off here (AUTOMATION_MAX_DEPTH=0), so every run this file
// sees is one its own call started. test/automations/end-to-end.test.ts goes through the dispatch.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { WorkflowNotFoundError } from '@temporalio/client';
import { v7 as uuidv7 } from 'uuid';
import { createAutomationTrigger } from '../../src/automations/trigger.js';
import { automationInvocationId } from '../../src/automations/ids.js';
import { AutomationRunStore } from '../../src/automations/runs.js';
import type { EventKind, RecordedEvent } from '../../src/events/types.js';
import { ArtifactStore } from '../../src/store/artifacts.js';
import { invocationWorkflowId } from '../../src/workflows/contracts/ids.js';
import type { Api } from '../helpers/http.js';
import { FakeOpenAI } from '../helpers/openai-server.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

const automationType = 'application/vnd.platform.automation+json';

let platform: TestPlatform;
let model: FakeOpenAI;
let alice: Api & { userId: string };
let trigger: ReturnType<typeof createAutomationTrigger>;
let runs: AutomationRunStore;
let store: ArtifactStore;
const notices: { message: string; fields: Record<string, unknown> }[] = [];
let seq = 0;

before(async () => {
  model = await new FakeOpenAI().start();
  platform = await startPlatform({
    AUTOMATION_MAX_DEPTH: '0',
    LLM_MODEL: 'test-model',
    OPENAI_BASE_URL: model.url,
    OPENAI_API_KEY: 'sk-test',
  });
  alice = await platform.newUser();
  const { db, temporal } = platform.services;
  trigger = createAutomationTrigger({ ...platform.config, AUTOMATION_MAX_DEPTH: 3 }, db, {
    client: () => temporal,
    log: (message, fields) => notices.push({ message, fields }),
  });
  runs = new AutomationRunStore(db);
  store = new ArtifactStore(db);
});
after(async () => {
  await platform?.close();
  await model?.close();
});

async function workspace(api: Api = alice): Promise<string> {
  return (await api.post('/workspaces', { name: 'automations' })).body.id;
}

async function createAutomation(ws: string, content: unknown, api: Api = alice): Promise<string> {
  const r = await api.post('/artifacts', {
    title: 'automation',
    content_type: automationType,
    content: JSON.stringify(content),
    collection_id: ws,
  });
  assert.equal(r.status, 201, r.text);
  return r.body.id;
}

async function draft(ws: string, title: string, content: string, contentType = 'text/markdown'): Promise<string> {
  const r = await alice.post('/artifacts', { title, content_type: contentType, content, collection_id: ws });
  assert.equal(r.status, 201, r.text);
  return r.body.id;
}

/** The event the outbox records for a write, built from the artifact as the write left it. */
async function eventOf(kind: EventKind, artifactId: string): Promise<RecordedEvent> {
  const doc = (await store.get(artifactId))!;
  return {
    id: uuidv7(),
    kind,
    workspace_id: doc.collection_id,
    artifact_id: doc._id,
    actor: doc.provenance.updated_by,
    occurred_at: new Date().toISOString(),
    content_type: doc.content_type,
    revision: doc.revision,
    source: doc.provenance.source,
    depth: doc.provenance.source.automation?.depth ?? 0,
    seq: ++seq,
  };
}

const handleOf = (automationId: string, eventId: string) =>
  platform.services.temporal.workflow.getHandle(invocationWorkflowId(automationInvocationId(automationId, eventId)));

async function started(automationId: string, eventId: string): Promise<boolean> {
  try {
    await handleOf(automationId, eventId).describe();
    return true;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}

const tagAutomation = (rules: Record<string, string[]>) => ({
  on: { kinds: ['artifact_created'], content_types: ['text/markdown'] },
  run: { agent: 'tag-keywords', params: { rules } },
  mode: 'apply',
});

describe('automations', () => {
  it('creating a draft of the watched type runs tag-keywords in apply mode, as the creator, and the draft gets its tags', async () => {
    const ws = await workspace();
    const automation = await createAutomation(ws, tagAutomation({ release: ['ship', 'release'], bug: ['crash'] }));
    const note = await draft(ws, 'Plan', 'We ship on Friday after the crash is fixed.');
    const event = await eventOf('artifact_created', note);
    assert.equal(event.depth, 0);
    await trigger([event]);

    const state = (await handleOf(automation, event.id).result()) as { status: string; principal_id: string; automation: unknown };
    assert.equal(state.status, 'completed');
    assert.equal(state.principal_id, alice.userId);
    assert.deepEqual(state.automation, {
      automation_id: automation,
      event_id: event.id,
      event_kind: 'artifact_created',
      artifact_id: note,
      depth: 1,
    });
    const doc = (await alice.get(`/artifacts/${note}`)).body;
    assert.deepEqual(doc.context.tags, ['release', 'bug']);
    const raw = (await store.get(note))!;
    assert.deepEqual(raw.provenance.source.automation, { id: automation, depth: 1, event_id: event.id });

    // Visible in Temporal with the event that caused it, and through GET /invocations/{id}.
    const described = await handleOf(automation, event.id).describe();
    assert.deepEqual(described.memo, {
      automation_id: automation,
      event_id: event.id,
      event_kind: 'artifact_created',
      artifact_id: note,
      depth: 1,
    });
    const invocation = await alice.get(`/invocations/${automationInvocationId(automation, event.id)}`);
    assert.equal(invocation.status, 200, invocation.text);
    const [recorded] = await runs.list(automation);
    assert.equal(recorded?.status, 'started');
  });

  it('a second dispatch of the same events starts nothing new', async () => {
    const ws = await workspace();
    const automation = await createAutomation(ws, tagAutomation({ doc: ['notes'] }));
    const note = await draft(ws, 'Notes', 'Some notes.');
    const event = await eventOf('artifact_created', note);
    await trigger([event]);
    const first = await handleOf(automation, event.id).describe();
    await handleOf(automation, event.id).result();
    await trigger([event]);
    const second = await handleOf(automation, event.id).describe();
    assert.equal(second.runId, first.runId);
    assert.equal((await runs.list(automation)).length, 1);
  });

  it('an event of another kind or content type triggers nothing', async () => {
    const ws = await workspace();
    const automation = await createAutomation(ws, tagAutomation({ doc: ['notes'] }));
    const plain = await draft(ws, 'Plain notes', 'notes', 'text/plain');
    const md = await draft(ws, 'Markdown notes', 'notes');
    await alice.patch(`/artifacts/${md}`, { title: 'Markdown notes, again' });
    const otherType = await eventOf('artifact_created', plain);
    const otherKind = await eventOf('artifact_updated', md);
    await trigger([otherType, otherKind]);
    assert.equal(await started(automation, otherType.id), false);
    assert.equal(await started(automation, otherKind.id), false);
    assert.deepEqual(await runs.list(automation), []);
  });

  it('a self-triggering automation stops at the loop guard: as many runs as AUTOMATION_MAX_DEPTH', async () => {
    const ws = await workspace();
    const automation = await createAutomation(ws, {
      on: { kinds: ['artifact_updated'], content_types: ['text/markdown'] },
      run: { agent: 'llm', input: 'Add a line to the note.' },
      mode: 'apply',
    });
    const note = await draft(ws, 'Growing note', 'line 0');
    let calls = 0;
    model.reply = () => ({
      content: {
        output: 'added a line',
        actions: [
          { kind: 'update', target: note, title: null, content: `line ${++calls}`, content_type: null, message: null, rationale: 'grow' },
        ],
      },
    });
    await alice.patch(`/artifacts/${note}`, { content: 'line 0, edited' });
    let event = await eventOf('artifact_updated', note);
    const events: RecordedEvent[] = [];
    for (let i = 0; i < 10 && event.depth! < 4; i++) {
      events.push(event);
      await trigger([event]);
      if (!(await started(automation, event.id))) break;
      const state = (await handleOf(automation, event.id).result()) as { status: string };
      assert.equal(state.status, 'completed');
      event = await eventOf('artifact_updated', note); // what the run's write recorded
      assert.equal(event.depth, events.length);
    }
    assert.deepEqual(
      events.map((e) => e.depth),
      [0, 1, 2, 3],
    );
    const recorded = await runs.list(automation);
    assert.equal(recorded.filter((r) => r.status === 'started').length, 3);
    const stopped = recorded.filter((r) => r.status === 'loop_guard');
    assert.deepEqual(
      stopped.map((r) => [r.event_id, r.event_depth]),
      [[events[3]!.id, 3]],
    );
    assert.ok(notices.some((n) => n.message.includes('loop guard') && n.fields.event_id === events[3]!.id));
    assert.equal((await store.get(note))!.content, 'line 3');
  });

  it('runs as its creator with their grants now: once they lost the workspace, the run is refused and recorded', async () => {
    const bob = await platform.newUser();
    const ws = await workspace();
    assert.equal((await alice.post(`/workspaces/${ws}/shares`, { person_id: bob.userId, flags: 'CRUI' })).status, 200);
    const automation = await createAutomation(ws, tagAutomation({ doc: ['notes'] }), bob);
    assert.equal((await alice.delete(`/workspaces/${ws}/shares/${bob.userId}`)).status, 204);
    const note = await draft(ws, 'Notes', 'notes');
    const event = await eventOf('artifact_created', note);
    await trigger([event]);
    assert.equal(await started(automation, event.id), false);
    const [recorded] = await runs.list(automation);
    assert.equal(recorded?.status, 'refused');
    assert.equal(recorded?.run_as, bob.userId);
    assert.match(recorded?.reason ?? '', /^forbidden: workspace/);
  });

  it('validates the definition (problem+json) and takes it only from a person signed in themselves', async () => {
    const ws = await workspace();
    const bad = async (content: unknown, field: string) => {
      const r = await alice.post('/artifacts', {
        title: 'a',
        content_type: automationType,
        content: JSON.stringify(content),
        collection_id: ws,
      });
      assert.equal(r.status, 400, r.text);
      assert.match(r.headers.get('content-type') ?? '', /problem\+json/);
      assert.equal(r.body.type.endsWith(':validation-error'), true, r.text);
      assert.ok(
        r.body.invalid_params.some((p: { name: string }) => p.name === field),
        r.text,
      );
    };
    await bad({ on: { kinds: ['artifact_created'] }, run: { agent: 'no-such-agent' }, mode: 'apply' }, 'content.run.agent');
    await bad({ on: { kinds: ['artifact_moved'] }, run: { agent: 'tag-keywords' } }, 'content.on.kinds.0');
    await bad({ on: { kinds: ['artifact_created'] }, run: { transform: ws }, mode: 'preview' }, 'content.mode');
    await bad({ on: { kinds: ['artifact_deleted'] }, run: { agent: 'dedupe' } }, 'content.run.artifacts');

    const key = await alice.post('/api-keys', { name: 'writer', scopes: ['artifact:read', 'artifact:write'] });
    assert.equal(key.status, 201, key.text);
    const r = await alice.withToken(key.body.key).post('/artifacts', {
      title: 'a',
      content_type: automationType,
      content: JSON.stringify(tagAutomation({ x: ['y'] })),
      collection_id: ws,
    });
    assert.equal(r.status, 403, r.text);
    assert.equal(r.body.type.endsWith(':forbidden'), true, r.text);
  });
});
