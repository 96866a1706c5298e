// A burst of 2,000 draft writes into one workspace (issue #21): how fast their events are recorded by
// the workspace's event workflow, the latency from each write (its revision claim, which holds the
// event) to its recording, and the workflow's task durations, read from the runs' histories
// (WorkflowTaskStarted → WorkflowTaskCompleted), and the same events delivered to a Tier 3 subscriber (a
// local webhook receiver): events/s delivered and write → delivery p50/p99. Numbers only: nothing here
// is asserted.
// BENCH_EVENTS=<n> changes the burst; EVENT_RELAY_INLINE=false measures the sweeper alone.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { benchPlatform } from './platform.js';
import { load } from './load.js';
import { eventsWorkflowId } from '../src/workflows/contracts/ids.js';
import { outbox, revisionsCollection } from '../src/store/revisions.js';

const size = Number(process.env.BENCH_EVENTS ?? 2000);
const concurrency = Number(process.env.BENCH_EVENTS_CONCURRENCY ?? 16);
const inline = process.env.EVENT_RELAY_INLINE ?? 'true';

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
const ms = (n: number) => `${n.toFixed(0)} ms`;

async function main(): Promise<void> {
  const bench = await benchPlatform('bench-events', {
    EMBEDDINGS_PROVIDER: 'hashing',
    EVENT_RELAY_INLINE: inline,
    EVENT_RELAY_GRACE_MS: '1000',
    EVENT_RELAY_SWEEP_MS: '200',
    MCP_OUTBOUND_ALLOW: '127.0.0.0/8',
  });
  // The subscriber: answers every delivery at once, and notes when each event arrived.
  const delivered = new Map<string, number>();
  const receiver: Server = createServer((req, res) => {
    const id = String(req.headers['webhook-id'] ?? '');
    req.resume().on('end', () => {
      if (!delivered.has(id)) delivered.set(id, Date.now());
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const { services, url, headers, config } = bench;
  try {
    const post = async (path: string, body: unknown) => {
      const res = await fetch(url + path, { method: 'POST', headers, body: JSON.stringify(body) });
      const json = await res.json();
      if (res.status >= 300) throw new Error(`POST ${path}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    };
    const ws = (await post('/workspaces', { name: 'event burst' })).id as string;
    const server = await post('/artifacts', {
      title: 'subscriber',
      content_type: 'application/vnd.platform.mcp-server+json',
      content: JSON.stringify({ transport: { type: 'http', url: 'http://127.0.0.1:9/mcp' } }),
      collection_id: ws,
    });
    const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    await post(`/workspaces/${ws}/subscriptions`, { url: hook, server_id: server.id, kinds: ['artifact_created'] });
    const started = Date.now();
    const writes = await load(size, concurrency, async (i) => {
      await post('/artifacts', { title: `Burst ${i}`, content_type: 'text/plain', content: `burst ${i}`, collection_id: ws });
      return true;
    });
    const events = services.db.collection('events');
    const deadline = Date.now() + 10 * 60_000;
    // The burst's events (not the subscriber's own registration).
    const burst = { workspace_id: ws, artifact_id: { $ne: server.id as string } };
    while ((await events.countDocuments(burst)) < size && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    const recorded = await events.find(burst, { projection: { occurred_at: 1, recorded_at: 1, seq: 1 } }).toArray();
    const latencies = recorded.map((e) => e.recorded_at.getTime() - Date.parse(e.occurred_at)).sort((a, b) => a - b);
    const lastRecorded = Math.max(...recorded.map((e) => e.recorded_at.getTime()));
    const seqs = recorded.map((e) => e.seq as number).sort((a, b) => a - b);
    const gapless = seqs.every((s, i) => i === 0 || s === seqs[i - 1]! + 1);

    // Every run of the workspace's event workflow (it continues as new), and each one's task durations.
    const runs: { runId: string; events: number; bytes: number }[] = [];
    const tasks: number[] = [];
    for await (const run of services.temporal.workflow.list({ query: `WorkflowId = "${eventsWorkflowId(ws)}"` })) {
      const history = await services.temporal.workflow.getHandle(run.workflowId, run.runId).fetchHistory();
      const list = history.events ?? [];
      let startedAt: number | undefined;
      for (const e of list) {
        const at = Number(e.eventTime?.seconds ?? 0) * 1000 + Math.floor((e.eventTime?.nanos ?? 0) / 1e6);
        if (e.workflowTaskStartedEventAttributes) startedAt = at;
        if (e.workflowTaskCompletedEventAttributes && startedAt !== undefined) {
          tasks.push(at - startedAt);
          startedAt = undefined;
        }
      }
      runs.push({ runId: run.runId, events: list.length, bytes: Buffer.byteLength(JSON.stringify(history)) });
    }
    tasks.sort((a, b) => a - b);
    // One sweep's lookup once all is relayed: what the sweeper costs at rest over this many claims.
    const claims = await revisionsCollection(services.db).estimatedDocumentCount();
    const sweepStarted = performance.now();
    await outbox.due(services.db, new Date(), 500);
    const sweepMs = performance.now() - sweepStarted;

    console.log(
      `\nEvent burst: ${size} creates into one workspace, ${concurrency} clients, fast path ${inline === 'false' ? 'off (sweeper only)' : 'on'}`,
    );
    console.log(`  writes:   ${writes.perSecond.toFixed(0)}/s, p50 ${ms(writes.p50)}, p99 ${ms(writes.p99)}, ${writes.errors} errors`);
    console.log(
      `  recorded: ${recorded.length}/${size} events in ${((lastRecorded - started) / 1000).toFixed(1)} s from the first write: ` +
        `${(recorded.length / ((lastRecorded - started) / 1000)).toFixed(0)} events/s; seq ${seqs[0]}..${seqs.at(-1)} ${gapless ? 'without a gap' : 'WITH GAPS'}`,
    );
    console.log(
      `  write → recorded: p50 ${ms(quantile(latencies, 0.5))}, p99 ${ms(quantile(latencies, 0.99))}, max ${ms(latencies.at(-1) ?? NaN)}`,
    );
    console.log(
      `  event workflow: ${runs.length} runs (continue-as-new after ${config.EVENTS_CONTINUE_AS_NEW_AFTER} events), ` +
        `largest history ${Math.max(...runs.map((r) => r.events))} events / ${(Math.max(...runs.map((r) => r.bytes)) / 1024).toFixed(0)} KB (as JSON)`,
    );
    console.log(
      `  workflow tasks: ${tasks.length}, p50 ${ms(quantile(tasks, 0.5))}, p99 ${ms(quantile(tasks, 0.99))}, largest ${ms(tasks.at(-1) ?? NaN)}`,
    );
    console.log(`  sweeper at rest: one lookup of waiting events over ${claims} claims took ${ms(sweepMs)}`);
    // The subscriber gets the 2,000 creates one at a time, in order, after they are recorded.
    const occurred = new Map(recorded.map((e) => [String(e._id), Date.parse(e.occurred_at)]));
    const arrived = () => [...delivered].filter(([id]) => occurred.has(id));
    while (arrived().length < size && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    const toDelivery = arrived()
      .map(([id, at]) => at - occurred.get(id)!)
      .sort((a, b) => a - b);
    const lastDelivered = Math.max(...arrived().map(([, at]) => at));
    console.log(
      `  subscriber: ${toDelivery.length}/${size} delivered in ${((lastDelivered - started) / 1000).toFixed(1)} s from the first write: ` +
        `${(toDelivery.length / ((lastDelivered - started) / 1000)).toFixed(0)} events/s; write → delivery p50 ${ms(quantile(toDelivery, 0.5))}, ` +
        `p99 ${ms(quantile(toDelivery, 0.99))}`,
    );
  } finally {
    receiver.close();
    await bench.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
