// The platform on Temporal's time-skipping test server (@temporalio/testing), for the workflows whose
// waits are long: the API and its services as test/helpers/platform.ts starts them, against the real
// store, but their Temporal client talks to a test server of the file's own, and a Worker on the test
// environment's connection runs the workflow bundle with the platform's real activities. Time then
// moves only when a test skips it (`skip`). Read workflows through `services.temporal` (the platform's
// client, with its payload codec), not `env.client`.
//
// The test server is the Java SDK's, installed by temporal-dev/install-test-server.sh: nothing is
// downloaded when the tests run.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { createMcpClient } from '../../src/main/mcp-client.js';
import { createWorkers } from '../../src/main/temporal-worker.js';
import { customSearchAttributes } from '../../src/temporal/search-attributes.js';
import { indexBacklogStatusQuery, indexBacklogWorkflowId } from '../../src/workflows/contracts/index-backlog.js';
import { indexingQueue } from '../../src/workflows/contracts/queues.js';
import { eventually } from '../helpers/http.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

/** The launcher temporal-dev/install-test-server.sh writes. */
export const testServerPath = resolve(process.env.PLATFORM_DEV_DIR ?? '.dev', 'bin', 'temporal-test-server');

export interface TimeSkippingPlatform extends TestPlatform {
  env: TestWorkflowEnvironment;
  /** Moves the test server's clock on by `ms` (the workers run whatever falls due meanwhile). */
  skip(ms: number): Promise<void>;
  /** The test server's clock, in ms since the epoch. */
  now(): Promise<number>;
  /**
   * Ends the deployment's indexing run (workflows/index-backlog.ts) once the backlog is empty. It looks
   * for work every minute, so a skipped week would replay 10,080 polls, each a workflow task and an
   * activity; it is started again by the next write, as in production.
   */
  stopIndexing(): Promise<void>;
}

let runtimeInstalled = false;

export async function startTimeSkippingPlatform(overrides: Record<string, string> = {}): Promise<TimeSkippingPlatform> {
  if (!existsSync(testServerPath))
    throw new Error(`${testServerPath} is missing: run \`bash temporal-dev/install-test-server.sh\` (npm test does)`);
  // Once per test file: the SDK's own lines from warnings up, and no signal handlers of its own.
  if (!runtimeInstalled) Runtime.install({ logger: new DefaultLogger('WARN'), shutdownSignals: [] });
  runtimeInstalled = true;
  const env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: testServerPath } },
  });
  let platform: TestPlatform | undefined;
  let running: Promise<unknown> | undefined;
  const workers: Worker[] = [];
  try {
    await env.connection.operatorService.addSearchAttributes({
      namespace: 'default',
      searchAttributes: Object.fromEntries(customSearchAttributes.map((a) => [a.name, 2 /* INDEXED_VALUE_TYPE_KEYWORD */])),
    });
    // Started by the API's own client, as in production: eager start needs a worker in this process's runtime registry.
    platform = await startPlatform({ TEMPORAL_ADDRESS: env.address, TEMPORAL_EAGER_START: 'false', ...overrides }, { worker: false });
    const { config, services } = platform;
    const mcp = createMcpClient(config, services.db, services.logger);
    // The production worker's own two workers (activities, codec, metrics, tracing, indexing slots).
    workers.push(
      ...(await createWorkers(config, services.db, env.nativeConnection, { codePath: requiredEnv('TEST_WORKFLOW_BUNDLE') }, mcp)),
    );
    running = Promise.allSettled(workers.map((w) => w.run())).finally(() => mcp.close());
  } catch (err) {
    await platform?.close().catch(() => undefined);
    await env.teardown();
    throw err;
  }
  const closePlatform = platform.close;
  return Object.assign(platform, {
    env,
    skip: (ms: number) => env.sleep(ms),
    now: () => env.currentTimeMs(),
    async stopIndexing() {
      const handle = platform!.services.temporal.workflow.getHandle(
        indexBacklogWorkflowId(indexingQueue(platform!.config.TEMPORAL_TASK_QUEUE)),
      );
      // Only while it waits for its poll, with no activity in flight: the test server leaks its time lock
      // for an activity whose run is terminated under it (and time then never moves again). Idle means
      // nothing pending and an unchanged history for two seconds (a write's signal may still be on its way).
      const idleMark = async () => {
        const [status, described] = await Promise.all([handle.query(indexBacklogStatusQuery), handle.describe()]);
        if (status.pending > 0 || described.raw.pendingActivities?.length) return null;
        return `${described.historyLength}:${status.batches}:${status.handled}`;
      };
      await eventually(
        async () => {
          const before = await idleMark();
          if (!before) return false;
          await new Promise((r) => setTimeout(r, 2_000));
          return before === (await idleMark());
        },
        60_000,
        'the indexing run idle',
      );
      await handle.terminate('a time-skipping test: its poll would replay every skipped minute');
    },
    async startWorker() {
      throw new Error('a time-skipping platform runs its own workers on the test environment');
    },
    async close() {
      for (const w of workers) if (w.getState() === 'RUNNING') w.shutdown();
      await running;
      await closePlatform();
      await env.teardown();
    },
  });
}

function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the suite with \`npm test\`, which starts the engines`);
  return value;
}
