// Records `indexBacklog` histories as replay fixtures (test/fixtures/workflow-histories/indexBacklog-*,
// replayed by test/temporal/workflow-replay.unit.test.ts; issue #23): on a whole platform of its own
// (bench/platform.ts, hashing embedder), the run is started with a small continue-as-new threshold,
// then a burst of 10 writes and 6 single writes 400 ms apart; every run of the workflow id is written
// to <out-dir> in clear (the platform's codec opens the payloads), as `temporal workflow show -o json`
// would. The committed fixtures are a continued-as-new run and the running one after it
// (continueAsNewAfter 14), and a running idle one (continueAsNewAfter 8, its last run).
// Usage: node --import tsx bench/indexing-record-histories.ts <out-dir> [continueAsNewAfter]
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { benchPlatform } from './platform.js';
import { historyToJson } from '../scripts/record-workflow-histories.js';
import { decodeHistory } from '../src/temporal/codec/history.js';
import { platformCodec } from '../src/temporal/payload-codec.js';
import { RunKind } from '../src/temporal/search-attributes.js';
import { indexBacklogSettings } from '../src/workflow-clients/indexing.js';
import { indexBacklogType, indexBacklogWorkflowId, revisionsWrittenSignal } from '../src/workflows/contracts/index-backlog.js';
import { indexingQueue } from '../src/workflows/contracts/queues.js';

const out = process.argv[2];
if (!out) throw new Error('usage: node --import tsx bench/indexing-record-histories.ts <out-dir> [continueAsNewAfter]');
const continueAsNewAfter = Number(process.argv[3] ?? 14);
mkdirSync(out, { recursive: true });
const bench = await benchPlatform('record-index-backlog', { EMBEDDINGS_PROVIDER: 'hashing', SEARCH_SYNC_INTERVAL_MS: '100' });
const { services, url, headers, config } = bench;
try {
  const taskQueue = indexingQueue(config.TEMPORAL_TASK_QUEUE);
  const workflowId = indexBacklogWorkflowId(taskQueue);
  // Started first with a small continue-as-new threshold, so that one run continues as new.
  await services.temporal.workflow.signalWithStart(indexBacklogType, {
    workflowId,
    taskQueue,
    args: [{ ...indexBacklogSettings, batchSize: 4, continueAsNewAfter }],
    signal: revisionsWrittenSignal,
    signalArgs: [[]],
    typedSearchAttributes: [{ key: RunKind, value: 'index-backlog' }],
  });
  const ws = (await (await fetch(`${url}/workspaces`, { method: 'POST', headers, body: JSON.stringify({ name: 'rec' }) })).json()).id;
  const ids: string[] = [];
  const write = async (i: number) => {
    const res = await fetch(`${url}/artifacts`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        title: `doc ${i}`,
        content_type: 'text/plain',
        content: `text number ${i} about wings and shocks`,
        collection_id: ws,
      }),
    });
    ids.push(((await res.json()) as { id: string }).id);
  };
  // A burst (batches with more), then single writes with pauses (the idle wait woken by queueing).
  await Promise.all(Array.from({ length: 10 }, (_, i) => write(i)));
  for (let i = 10; i < 16; i++) {
    await write(i);
    await new Promise((r) => setTimeout(r, 400));
  }
  const deadline = Date.now() + 60_000;
  while (ids.some((id) => !services.search.index.hasVector(id)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  console.log(
    'all searchable:',
    ids.every((id) => services.search.index.hasVector(id)),
  );
  const codec = platformCodec(config);
  let n = 0;
  for await (const wf of services.temporal.workflow.list({ query: `WorkflowId = '${workflowId}'` })) {
    const history = await decodeHistory(await services.temporal.workflow.getHandle(wf.workflowId, wf.runId).fetchHistory(), codec);
    const events = history.events ?? [];
    const file = join(out, `indexBacklog-${++n}-${wf.status.name.toLowerCase()}.json`);
    writeFileSync(file, historyToJson(history));
    console.log(
      file,
      wf.status.name,
      events.length,
      'events',
      events
        .map((e) => e.activityTaskScheduledEventAttributes?.activityType?.name)
        .filter(Boolean)
        .join(','),
    );
  }
} finally {
  await bench.close();
}
