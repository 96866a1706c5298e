// Records workflow histories as replay fixtures (test/fixtures/workflow-histories/, replayed by
// test/temporal/workflow-replay.unit.test.ts).
//
// How the committed fixtures were made (restructuring of src/workflows, 2026-11-23): the last commit before
// it, a4d90f1, was exported to /tmp/old (`git archive a4d90f1 | tar -x`, node_modules and .dev symlinked),
// and that copy's test/run.ts was patched to call `recordHistories(engines.temporalAddress, dir)` below
// after the tests and before `engines.stop()`. Then, in /tmp/old:
//   node --import tsx test/run.ts commits.test invocations.test transforms.test connections.test \
//     events.test search.test mcp-client.test
// (84 passed, 0 failed). From the candidates written (one per distinct shape: workflow type, status,
// activities, signals, updates, timers, last event) a small varied set was copied by hand into the fixtures
// folder, renamed `<workflowType>-<n>-<state>.json`. Still-running executions (a commit awaiting approval,
// a connection waiting on its refresh timer, workspaceEvents) matter most: a deploy meets them mid-flight.
//
// Standalone, against any reachable Temporal (dev server, say) with executions of the old code in it:
//   node --import tsx scripts/record-workflow-histories.ts <host:port> <out-dir> [namespace]
//
// historyToJSON of @temporalio/common is not used: in this install @temporalio/common and
// @temporalio/proto each carry their own protobufjs 8.8.1, and protojson from common's copy throws
// "type must be a Type" on proto's Type. The same conversion on proto's own protobufjs copy works and
// writes the same proto3 JSON (`temporal workflow show -o json` format).
//
// Payloads are sealed by the platform's codec (src/temporal/payload-codec.ts): the recorder opens them with
// the codec of the platform's configuration (PLATFORM_MASTER_KEY and PLATFORM_PREVIOUS_MASTER_KEYS, or the
// development key file under PLATFORM_DEV_DIR), so the fixtures are clear and replay without any key.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { loadConfig, type Config } from '../src/kernel/config/env.js';
import { decodeHistory } from '../src/temporal/codec/history.js';
import { platformClient } from '../src/temporal/client.js';
import { platformCodec } from '../src/temporal/payload-codec.js';

export const recordedTypes = [
  'commitWorkspace',
  'agentRun',
  'transformRun',
  'mcpRun',
  'connectionFlow',
  'indexArtifact',
  'workspaceEvents',
];

const protoRequire = createRequire(createRequire(import.meta.url).resolve('@temporalio/proto'));
const protojson = protoRequire('protobufjs/ext/protojson') as { toJson(type: unknown, message: unknown): unknown };
const protoRoot = protoRequire('@temporalio/proto');
const historyType = protoRequire('@temporalio/proto/lib/patch-protobuf-root')
  .patchProtobufRoot(protoRoot)
  .lookupType('temporal.api.history.v1.History');
/** A history as `temporal workflow show -o json` writes it (protojson). */
export const historyToJson = (history: unknown) =>
  JSON.stringify(protojson.toJson(historyType, protoRoot.temporal.api.history.v1.History.fromObject(history)), null, 2);

/** Writes one history per distinct shape of each recorded workflow type, and an index.json describing them. */
export async function recordHistories(
  address: string,
  outDir: string,
  namespace = 'default',
  say = console.log,
  config: Config = loadConfig({ ...process.env, TEMPORAL_NAMESPACE: namespace }),
): Promise<void> {
  mkdirSync(outDir, { recursive: true });
  const connection = await Connection.connect({ address });
  const client = platformClient(config, connection);
  const codec = platformCodec(config);
  const index: unknown[] = [];
  const fetched = new Map<string, number>(); // `${type}|${status}` -> histories looked at
  const shapes = new Set<string>();
  const written = new Map<string, number>();
  try {
    for await (const wf of client.workflow.list()) {
      if (!recordedTypes.includes(wf.type)) continue;
      const status = wf.status.name;
      const key = `${wf.type}|${status}`;
      const n = fetched.get(key) ?? 0;
      if (n >= 60) continue;
      fetched.set(key, n + 1);
      try {
        const history = await decodeHistory(await client.workflow.getHandle(wf.workflowId, wf.runId).fetchHistory(), codec);
        const events = history.events ?? [];
        const activities = events.flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? []);
        const signals = events.flatMap((e) => e.workflowExecutionSignaledEventAttributes?.signalName ?? []);
        const updates = events.flatMap((e) => e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name ?? []);
        const timers = events.filter((e) => e.timerStartedEventAttributes).length;
        const last = String(events[events.length - 1]?.eventType);
        const shape = [
          wf.type,
          status,
          activities.join(','),
          [...new Set(signals)].join(','),
          [...new Set(updates)].join(','),
          timers > 0,
          last,
        ].join('|');
        if (shapes.has(shape)) continue;
        shapes.add(shape);
        const i = (written.get(wf.type) ?? 0) + 1;
        written.set(wf.type, i);
        const json = historyToJson(history);
        const file = `${wf.type}-${status.toLowerCase()}-${i}.json`;
        writeFileSync(join(outDir, file), json);
        index.push({
          file,
          type: wf.type,
          status,
          workflowId: wf.workflowId,
          runId: wf.runId,
          events: events.length,
          bytes: json.length,
          activities,
          signals,
          updates,
          timers,
          last,
        });
      } catch (err) {
        say(`record ${wf.workflowId}: ${(err as Error).message}`);
      }
    }
  } finally {
    await connection.close();
  }
  writeFileSync(join(outDir, 'index.json'), JSON.stringify(index, null, 1));
  say(`recorded ${index.length} histories into ${outDir}`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [address, outDir, namespace] = process.argv.slice(2);
  if (!address || !outDir) {
    console.error('usage: node --import tsx scripts/record-workflow-histories.ts <host:port> <out-dir> [namespace]');
    process.exit(2);
  }
  recordHistories(address, outDir, namespace).catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
