// Indexing in batches (issue #23): one long-lived run per deployment embeds what writes signal, many
// revisions per activity, and a worker killed mid-batch loses nothing.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { indexBacklogStatusQuery, indexBacklogWorkflowId } from '../../src/workflows/contracts/index-backlog.js';
import { indexingQueue } from '../../src/workflows/contracts/queues.js';
import { eventually, type Api } from '../helpers/http.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';
import { workerProcess } from '../helpers/worker-process.js';

let platform: TestPlatform;
let admin: Api;
const workers: ChildProcess[] = [];
before(async () => {
  platform = await startPlatform({ SEARCH_SYNC_INTERVAL_MS: '100' }, { worker: false });
  admin = await platform.admin();
});
after(async () => {
  workers.forEach((w) => w.exitCode === null && w.kill('SIGTERM'));
  await platform.close();
});

const paragraph = (i: number) =>
  Array.from(
    { length: 12 },
    (_, j) => `Sentence ${j} of abstract ${i} on boundary layers, shock waves and panel flutter at Mach ${i % 7}.`,
  ).join(' ');

async function createMany(ws: string, n: number, tag: string): Promise<string[]> {
  return Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const reply = await admin.post('/artifacts', {
        title: `${tag} ${i}`,
        content_type: 'text/plain',
        content: paragraph(i),
        collection_id: ws,
      });
      assert.equal(reply.status, 201, reply.text);
      return reply.body.id as string;
    }),
  );
}

/** How many of these artifacts have a vector of their current revision stored. */
async function embeddedCount(ids: string[]): Promise<number> {
  const docs = await platform.services.db
    .collection('artifacts')
    .find({ _id: { $in: ids } } as never)
    .project({ revision: 1, 'search.revision': 1, 'search.embedder': 1 })
    .toArray();
  return docs.filter((d) => d.search?.revision === d.revision && d.search?.embedder === platform.services.search.embedder.id).length;
}

const backlogSize = () => platform.services.db.collection('embedding_backlog').countDocuments({});
const status = () =>
  platform.services.temporal.workflow
    .getHandle(indexBacklogWorkflowId(indexingQueue(platform.config.TEMPORAL_TASK_QUEUE)))
    .query(indexBacklogStatusQuery);

describe('indexing in batches', () => {
  it('embeds a burst of writes in a few activities of one run, none per revision', async () => {
    workers.push(await workerProcess(platform));
    const ws = (await admin.post('/workspaces', { name: 'burst' })).body.id;
    const ids = await createMany(ws, 40, 'burst');
    await eventually(async () => (await embeddedCount(ids)) === ids.length, 90_000, 'every revision embedded');
    await eventually(async () => (await backlogSize()) === 0, 10_000, 'the backlog emptied');
    const { handled, batches } = await status();
    assert.ok(handled >= ids.length, `handled ${handled}`);
    assert.ok(batches < ids.length, `${batches} batches for ${ids.length} revisions`);
    // And the searches see them: the API's index applied the vectors.
    await eventually(async () => ids.every((id) => platform.services.search.index.hasVector(id)), 10_000, 'vectors in the index');
    const { count } = await platform.services.temporal.workflow.count(
      `RunKind = "index-artifact" AND TaskQueue = "${indexingQueue(platform.config.TEMPORAL_TASK_QUEUE)}"`,
    );
    assert.equal(count, 0, 'no workflow per revision');
  });

  it('loses nothing when the worker is killed mid-batch: the next one embeds what is left', async () => {
    const ws = (await admin.post('/workspaces', { name: 'crash' })).body.id;
    const ids = await createMany(ws, 96, 'crash');
    // The first batch stored, the next under way: kill the worker without warning.
    const before = await eventually(
      async () => {
        const n = await embeddedCount(ids);
        return n > 0 ? n : null;
      },
      90_000,
      'a first batch embedded',
    );
    workers.shift()!.kill('SIGKILL');
    const atKill = await embeddedCount(ids);
    assert.ok(atKill < ids.length, `killed with ${atKill} of ${ids.length} embedded (first seen ${before}): the crash fell mid-work`);
    assert.ok((await backlogSize()) > 0, 'what is left waits in the backlog');
    workers.push(await workerProcess(platform));
    await eventually(async () => (await embeddedCount(ids)) === ids.length, 120_000, 'every revision embedded after the restart');
    await eventually(async () => (await backlogSize()) === 0, 10_000, 'the backlog emptied');
  });
});
