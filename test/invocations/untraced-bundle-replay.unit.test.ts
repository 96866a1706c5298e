// A worker without a traces endpoint bundles its workflows without the tracing interceptors (issue #23:
// every workflow evaluates them afresh, whether or not a span is ever exported). The recorded histories,
// made by workers that had them, must replay the same without them: the interceptors issue no commands.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { it } from 'node:test';
import type { History } from '@temporalio/common/lib/proto-utils.js';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { loadConfig } from '../../src/kernel/config/env.js';
import { workflowBundleOptions, workflowBundleOptionsFor } from '../../src/main/temporal-worker.js';

/** The fixtures as proto3 JSON, parsed with @temporalio/proto's own protobufjs (see test/temporal/workflow-replay.unit.test.ts). */
function parseHistory(json: unknown): History {
  const protoRequire = createRequire(createRequire(import.meta.url).resolve('@temporalio/proto'));
  const protojson = protoRequire('protobufjs/ext/protojson') as {
    fromJson(type: unknown, json: unknown, options: { ignoreUnknownFields: boolean }): History | null;
  };
  const historyType = protoRequire('@temporalio/proto/lib/patch-protobuf-root')
    .patchProtobufRoot(protoRequire('@temporalio/proto'))
    .lookupType('temporal.api.history.v1.History');
  const history = protojson.fromJson(historyType, json, { ignoreUnknownFields: true });
  if (!history) throw new TypeError('invalid history JSON');
  return history;
}

const untraced = loadConfig({});
const traced = loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' });

it('leaves the tracing interceptors out of the bundle only when there is no traces endpoint', () => {
  assert.deepEqual(workflowBundleOptionsFor(untraced).workflowInterceptorModules, []);
  assert.deepEqual(workflowBundleOptionsFor(traced).workflowInterceptorModules, workflowBundleOptions.workflowInterceptorModules);
  assert.ok(workflowBundleOptions.workflowInterceptorModules.length > 0);
});

it('replays every recorded history deterministically on the bundle without them', async () => {
  const dir = fileURLToPath(new URL('../fixtures/workflow-histories/', import.meta.url));
  const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
  assert.ok(files.length > 0, 'no recorded histories');
  const histories = files.map((file) => ({ workflowId: file, history: parseHistory(JSON.parse(readFileSync(`${dir}${file}`, 'utf8'))) }));
  const { code } = await bundleWorkflowCode({
    ...workflowBundleOptionsFor(untraced),
    logger: { info() {}, warn() {}, error: console.error, debug() {}, trace() {}, log() {} },
  });
  assert.ok(!code.includes('workflow-interceptors.ts'), 'the bundle holds no tracing interceptors');
  const failed: string[] = [];
  let replayed = 0;
  for await (const result of Worker.runReplayHistories({ workflowBundle: { code }, replayName: 'untraced-bundle-replay' }, histories)) {
    replayed++;
    if (result.error) failed.push(`${result.workflowId}: ${result.error.name}: ${result.error.message}`);
  }
  assert.equal(replayed, files.length);
  assert.deepEqual(failed, []);
});
