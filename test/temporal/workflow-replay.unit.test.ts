// Replay test: the histories in test/fixtures/workflow-histories/ were recorded by the workflow code as it
// was before the source restructuring (commit a4d90f1; see scripts/record-workflow-histories.ts for how).
// Each is replayed against the CURRENT workflow bundle. A workflow that now issues its commands in another
// order, or under another type, activity, timer or message name, fails here with a DeterminismViolationError
// (or another ReplayError) — which is what a worker deployed mid-flight would meet on a running execution.
// No engines: replay runs in-process on the SDK's core.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { before, describe, it } from 'node:test';
import { historyFromJSON, type History } from '@temporalio/common/lib/proto-utils.js';
import { bundleWorkflowCode, Worker, type ReplayResult } from '@temporalio/worker';
import { workflowBundleOptions } from '../../src/main/temporal-worker.js';

/**
 * `historyFromJSON` of @temporalio/common, or the same parse on @temporalio/proto's own protobufjs where the
 * SDK's throws "type must be a Type": in this install @temporalio/common and @temporalio/proto each carry a
 * copy of protobufjs 8.8.1 (the root has 7.x for other packages), and protojson from common's copy rejects
 * the Type built by proto's copy. The fixtures are plain proto3 JSON, as `temporal workflow show -o json` writes.
 */
function parseHistory(json: unknown): History {
  try {
    return historyFromJSON(json);
  } catch (err) {
    if (!/type must be a Type/.test((err as Error).message)) throw err;
    const protoRequire = createRequire(createRequire(import.meta.url).resolve('@temporalio/proto'));
    const protojson = protoRequire('protobufjs/ext/protojson') as {
      fromJson(type: unknown, json: unknown, options: { ignoreUnknownFields: boolean }): History | null;
    };
    const root = protoRequire('@temporalio/proto');
    const historyType = protoRequire('@temporalio/proto/lib/patch-protobuf-root')
      .patchProtobufRoot(root)
      .lookupType('temporal.api.history.v1.History');
    const history = protojson.fromJson(historyType, json, { ignoreUnknownFields: true });
    if (!history) throw new TypeError('invalid history JSON');
    return history;
  }
}

const fixturesDir = fileURLToPath(new URL('../fixtures/workflow-histories/', import.meta.url));
const workflowTypes = [
  'commitWorkspace',
  'agentRun',
  'transformRun',
  'mcpRun',
  'connectionFlow',
  'indexArtifact',
  'workspaceEvents',
  // Recorded by bench/indexing-record-histories.ts (issue #23).
  'indexBacklog',
];

interface Fixture {
  file: string;
  history: History;
  type: string;
  /** No close event at the end: an execution a deploy meets mid-flight. */
  running: boolean;
}

function loadFixtures(): Fixture[] {
  return readdirSync(fixturesDir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => {
      const history = parseHistory(JSON.parse(readFileSync(`${fixturesDir}${file}`, 'utf8')));
      const events = history.events ?? [];
      const type = events[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name ?? '';
      const last = events[events.length - 1];
      const closed = Boolean(
        last?.workflowExecutionCompletedEventAttributes ||
        last?.workflowExecutionFailedEventAttributes ||
        last?.workflowExecutionTimedOutEventAttributes ||
        last?.workflowExecutionCanceledEventAttributes ||
        last?.workflowExecutionTerminatedEventAttributes ||
        last?.workflowExecutionContinuedAsNewEventAttributes,
      );
      return { file, history, type, running: !closed };
    });
}

const fixtures = loadFixtures();

describe('workflow replay: histories recorded before the restructuring replay on the current code', () => {
  const results = new Map<string, ReplayResult>();

  before(async () => {
    // The worker's own bundle options: the workflows and their (tracing) interceptors, as deployed.
    const { code } = await bundleWorkflowCode({
      ...workflowBundleOptions,
      logger: { info() {}, warn() {}, error: console.error, debug() {}, trace() {}, log() {} },
    });
    const histories = fixtures.map((f) => ({ workflowId: f.file, history: f.history }));
    for await (const result of Worker.runReplayHistories({ workflowBundle: { code }, replayName: 'workflow-replay-unit' }, histories)) {
      results.set(result.workflowId, result);
    }
  });

  it('has a fixture for each workflow type, and running executions among them', () => {
    const types = new Set(fixtures.map((f) => f.type));
    for (const type of workflowTypes) assert.ok(types.has(type), `no history fixture of workflow type ${type}`);
    for (const f of fixtures) {
      assert.ok(workflowTypes.includes(f.type), `${f.file}: unexpected workflow type "${f.type}"`);
      assert.ok(f.file.startsWith(`${f.type}-`), `${f.file}: file name does not start with its workflow type ${f.type}`);
    }
    assert.ok(
      fixtures.some((f) => f.running),
      'no still-running history: a deploy meets executions mid-flight',
    );
  });

  for (const fixture of fixtures) {
    it(`${fixture.file} (${fixture.type}, ${fixture.running ? 'running' : 'closed'}) replays deterministically`, () => {
      const result = results.get(fixture.file);
      assert.ok(result, `${fixture.file} was not replayed`);
      const error = result.error;
      assert.equal(
        error,
        undefined,
        `${fixture.file}: ${error?.name ?? 'error'} on replay: ${error?.message ?? ''}${error?.cause ? ` (cause: ${String((error.cause as Error).message ?? error.cause)})` : ''}`,
      );
    });
  }
});
