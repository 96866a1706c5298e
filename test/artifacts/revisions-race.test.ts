// Revisions across processes (issue #17): REST edits of one draft from two API processes (this
// process and a second real API process on the same database) race an agent applying an update to
// the same draft in a worker process. The engine does not make single-document updates atomic, so
// only the revision claims (unique inserts) can keep every edit: afterwards each draft's revision is
// 1 + every write answered as successful, and its revision history holds each one.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { agentId } from '../../src/invocations/agents/registry.js';
import { apiProcess, type ApiProcess } from '../helpers/api-process.js';
import { Api, type Reply } from '../helpers/http.js';
import { adminEmail, adminPassword, startPlatform, type TestPlatform } from '../helpers/platform.js';
import { workerProcess } from '../helpers/worker-process.js';

const tag = agentId('tag-keywords');
const drafts = 8;
const editsPerProcess = 5;
const invocations = 3;

let platform: TestPlatform;
let replica: ApiProcess;
let worker: ChildProcess;
let a: Api;
let b: Api;

before(async () => {
  platform = await startPlatform({}, { worker: false });
  [replica, worker] = await Promise.all([apiProcess(platform), workerProcess(platform)]);
  a = await platform.admin();
  b = await new Api(replica.url).login(adminEmail, adminPassword);
});
after(async () => {
  worker?.kill('SIGTERM');
  await replica?.stop();
  await platform?.close();
});

interface Success {
  revision: number;
  by: string;
}

describe('revisions across API processes and a worker', () => {
  it('gives every successful write its own revision and loses none', async () => {
    const ws = (await a.post('/workspaces', { name: 'race' })).body.id as string;
    const ids: string[] = [];
    for (let i = 0; i < drafts; i++) {
      const r = await a.post('/artifacts', {
        title: `draft ${i}`,
        content_type: 'text/markdown',
        content: 'A race between editors and an agent.',
        collection_id: ws,
      });
      assert.equal(r.status, 201, r.text);
      ids.push(r.body.id);
    }
    const successes = new Map<string, Success[]>(ids.map((id) => [id, []]));
    const failures: string[] = [];

    const edits = (api: Api, name: string) =>
      ids.map(async (id) => {
        for (let i = 0; i < editsPerProcess; i++) {
          const r: Reply = await api.patch(`/artifacts/${id}`, { title: `${name} edit ${i}` });
          if (r.status === 200) successes.get(id)!.push({ revision: r.body.revision, by: `${name}${i}` });
          else failures.push(`${name} PATCH ${r.status} ${r.text}`);
        }
      });
    const agent = async () => {
      for (let k = 0; k < invocations; k++) {
        // A new tag each time, so the agent proposes an update of every draft at its revision then.
        const r = await a.post(`/artifacts/${tag}/invoke`, {
          workspace_id: ws,
          mode: 'apply',
          params: { rules: { [`round${k}`]: ['race'] } },
        });
        assert.equal(r.status, 200, r.text);
        for (const action of r.body.actions as { status: string; artifact_id: string }[]) {
          if (action.status === 'applied') successes.get(action.artifact_id)!.push({ revision: -1, by: `agent${k}` });
          else assert.equal(action.status, 'conflict', JSON.stringify(action));
        }
      }
    };
    await Promise.all([...edits(a, 'a'), ...edits(b, 'b'), agent()]);
    assert.deepEqual(failures, []);

    let agentApplied = 0;
    for (const id of ids) {
      const doc = (await a.get(`/artifacts/${id}`)).body;
      const writes = successes.get(id)!;
      agentApplied += writes.filter((w) => w.revision === -1).length;
      assert.equal(
        doc.revision,
        1 + writes.length,
        `draft ${id}: revision ${doc.revision}, but ${writes.length} writes were answered as successful`,
      );
      // Each REST edit was answered with a revision of its own.
      const answered = writes.filter((w) => w.revision !== -1).map((w) => w.revision);
      assert.equal(new Set(answered).size, answered.length, `draft ${id}: two edits answered with the same revision: ${answered}`);
      // The history lists every revision once, each with what was written at it.
      const history = await a.get(`/artifacts/${id}/revisions?limit=200`);
      assert.equal(history.status, 200, history.text);
      const revisions = history.body.items as { revision: number; title: string; provenance: { source: { kind: string } } }[];
      assert.deepEqual(
        revisions.map((r) => r.revision),
        Array.from({ length: doc.revision }, (_, i) => i + 1),
      );
      for (const w of writes) {
        if (w.revision === -1) continue;
        const at = revisions.find((r) => r.revision === w.revision)!;
        assert.equal(at.title, `${w.by.slice(0, 1)} edit ${w.by.slice(1)}`);
      }
      assert.equal(revisions.filter((r) => r.provenance.source.kind === 'agent').length, writes.filter((w) => w.revision === -1).length);
      assert.equal(doc.title, revisions.at(-1)!.title);
    }
    // The race is only a race when the agent got some of its updates in.
    assert.ok(agentApplied > 0, 'no agent update was applied: the race did not happen');
  });
});
