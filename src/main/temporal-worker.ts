import { fileURLToPath } from 'node:url';
import {
  bundleWorkflowCode,
  DefaultLogger,
  NativeConnection,
  Runtime,
  Worker,
  type LogLevel,
  type WorkflowBundleOption,
} from '@temporalio/worker';
import type { Db } from 'mongodb';
import { startSweeper } from '../events/outbox-relay.js';
import { EventWorkflows } from '../workflow-clients/events.js';
import { EventStore } from '../store/events.js';
import { outbox } from '../store/revisions.js';
import { createActivities, type ActivityMcp } from '../activities/index.js';
import { createEmbedder } from '../search/embedder.js';
import type { Config } from '../kernel/config/env.js';
import type { Logger } from '../kernel/logging/logger.js';
import { platformClient, temporalConnectionOptions } from '../temporal/client.js';
import { failureConverterPath, platformDataConverter } from '../temporal/payload-codec.js';
import { workerTracingInterceptors, workerTracingSinks, workflowTracingModules } from '../observability/temporal-tracing.js';
import { tracesEndpoint } from '../observability/tracing.js';
import { activityMetricsInterceptors, runtimeTelemetry } from '../observability/worker-metrics.js';
import { customSearchAttributes } from '../temporal/search-attributes.js';
import { indexingQueue } from '../workflows/contracts/queues.js';
import { registerLocalWorker } from '../temporal/local-worker.js';
import { createMcpClient } from './mcp-client.js';

export const workflowsPath = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));

/** What a workflow bundle is built from, here and by the test runner: the workflows and their interceptors. */
export const workflowBundleOptions = { workflowsPath, workflowInterceptorModules: workflowTracingModules, failureConverterPath };

/**
 * The bundle options for this worker's configuration. Without a traces endpoint the workflows carry
 * no tracing interceptors: their spans would be dropped anyway, and every workflow the worker creates
 * evaluates its bundle's interceptor modules afresh (OpenTelemetry's tracer provider among them: about
 * a sixth of the workflow thread's CPU per invocation, issue #23). The interceptors issue no commands, so
 * histories replay the same with or without them (test/invocations/untraced-bundle-replay.unit.test.ts).
 */
export function workflowBundleOptionsFor(config: Config): typeof workflowBundleOptions {
  return tracesEndpoint(config) ? workflowBundleOptions : { ...workflowBundleOptions, workflowInterceptorModules: [] };
}

/**
 * Registers the custom search attributes on clusters that lack them (the dev server gets them at
 * start; Temporal Cloud manages them in its own console, so a refusal there is only a warning).
 */
async function ensureSearchAttributes(connection: NativeConnection, namespace: string, logger: Logger): Promise<void> {
  try {
    const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
    const missing = customSearchAttributes.filter((a) => !customAttributes?.[a.name]);
    if (missing.length === 0) return;
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(missing.map((a) => [a.name, 2 /* INDEXED_VALUE_TYPE_KEYWORD */])),
    });
    logger.info({ added: missing.map((a) => a.name) }, 'registered Temporal search attributes');
  } catch (err) {
    logger.warn(
      { err: (err as Error).message },
      'could not register Temporal search attributes; register them with `temporal operator search-attribute create`',
    );
  }
}

let runtimeInstalled = false;

/**
 * Routes the Temporal SDK's own log lines (worker state, bundling) through our JSON logger, and sets
 * up its telemetry (its own metrics). Once per process, before any connection.
 */
function installRuntime(config: Config, logger: Logger): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  const levels: Record<LogLevel, 'trace' | 'debug' | 'info' | 'warn' | 'error'> = {
    TRACE: 'trace',
    DEBUG: 'debug',
    INFO: 'info',
    WARN: 'warn',
    ERROR: 'error',
  };
  Runtime.install({
    logger: new DefaultLogger('INFO', (entry) => logger[levels[entry.level]]({ temporal: entry.meta }, entry.message)),
    telemetryOptions: runtimeTelemetry(config),
    // No signal handling of the SDK's own: src/main/worker.ts owns SIGTERM/SIGINT (one logged path, and a
    // second signal exits at once), and a test process's workers stop when the test says.
    shutdownSignals: [],
  });
}

/** Both workers of the process, run and stopped together. */
export interface PlatformWorker {
  worker: { run(): Promise<void>; shutdown(): void };
  connection: NativeConnection;
}

/**
 * How long a shutdown lets running activities finish, then how long cancelled ones get to stop. The
 * production worker passes WORKER_SHUTDOWN_GRACE_MS/_FORCE_MS; without, activities are cancelled at once
 * (the SDK's default, which in-process test workers keep) and the worker waits for them as long as they take.
 */
export interface ShutdownTimes {
  graceMs: number;
  forceMs: number;
}

/** Embeddings at once on the indexing queue: CPU-bound locally, rate-limited remotely. */
const indexingSlots = 2;

/**
 * The process's two workers (the main task queue, and the indexing queue with its few slots), on one
 * connection, with the platform's activities, payload codec, metrics and tracing. The production
 * worker and the time-skipping workflow tests (test/workflows/) build them here, so the two cannot drift.
 */
export async function createWorkers(
  config: Config,
  db: Db,
  connection: NativeConnection,
  workflowBundle: WorkflowBundleOption,
  mcp: ActivityMcp,
  stopping?: ShutdownTimes,
): Promise<Worker[]> {
  const activities = createActivities(config, db, await createEmbedder(config), mcp);
  const tracing = workerTracingInterceptors();
  const common = {
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    workflowBundle,
    activities,
    dataConverter: platformDataConverter(config),
    interceptors: { ...tracing, activity: [...activityMetricsInterceptors(), ...(tracing.activity ?? [])] },
    sinks: workerTracingSinks(),
    // On shutdown: polling stops, running activities get the grace to finish, then are cancelled (a
    // heartbeating one sees it) and get the force time more; past it, run() throws and the process exits 1.
    ...(stopping && { shutdownGraceTime: stopping.graceMs, shutdownForceTime: stopping.graceMs + stopping.forceMs }),
  };
  return [
    await Worker.create({ ...common, taskQueue: config.TEMPORAL_TASK_QUEUE }),
    await Worker.create({
      ...common,
      taskQueue: indexingQueue(config.TEMPORAL_TASK_QUEUE),
      maxConcurrentActivityTaskExecutions: indexingSlots,
    }),
  ];
}

export async function createPlatformWorker(
  config: Config,
  db: Db,
  logger: Logger,
  workflowBundle?: WorkflowBundleOption,
  stopping?: ShutdownTimes,
): Promise<PlatformWorker> {
  installRuntime(config, logger);
  const { address, tls } = temporalConnectionOptions(config);
  const apiKey = config.TEMPORAL_API_KEY;
  const connection = await NativeConnection.connect({ address, tls, apiKey });
  await ensureSearchAttributes(connection, config.TEMPORAL_NAMESPACE, logger);
  const bundle =
    workflowBundle ??
    (await bundleWorkflowCode({
      ...workflowBundleOptionsFor(config),
      logger: { trace() {}, debug() {}, info() {}, warn: (m) => logger.warn(m), error: (m) => logger.error(m), log() {} },
    }));
  const mcp = createMcpClient(config, db, logger);
  const workers = await createWorkers(config, db, connection, bundle, mcp, stopping);
  // Invocations started from this process (the API beside its worker, a test, a benchmark) may be started eagerly on it.
  if (config.TEMPORAL_EAGER_START)
    registerLocalWorker(config.TEMPORAL_TASK_QUEUE, platformClient(config, connection), () => workers[0]!.getState() === 'RUNNING');
  const sweeperEvents = await eventSweeper(config, db, connection);
  let sweeper: { stop(): Promise<void> } | undefined;
  // The sweeper stops first: nothing new is relayed by a worker on its way out (another worker's sweeper takes over).
  const shutdown = () => {
    void sweeper?.stop();
    workers.forEach((w) => w.getState() === 'RUNNING' && w.shutdown());
  };
  return {
    worker: {
      // When one stops (or fails), the other is stopped too: the process runs both or neither.
      run: async () => {
        const runs = workers.map((w) => w.run().finally(shutdown));
        sweeper = startSweeper(sweeperEvents.relay!, config.EVENT_RELAY_SWEEP_MS, logger);
        const outcomes = await Promise.allSettled(runs);
        await sweeper.stop();
        await mcp.close();
        const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
        if (failed) throw failed.reason;
      },
      shutdown,
    },
    connection,
  };
}

/**
 * The outbox's sweeper (issue #21) runs in every worker process: it relays the events whose write's
 * fast path did not hand them on within EVENT_RELAY_GRACE_MS (a crash, a refused signal, or
 * EVENT_RELAY_INLINE=false). Several workers sweeping at once send an event twice at worst; the event
 * workflow and the store drop the copy.
 */
async function eventSweeper(config: Config, db: Db, connection: NativeConnection): Promise<EventWorkflows> {
  await Promise.all([outbox.ensureIndex(db), new EventStore(db).ensureIndexes()]);
  const client = platformClient(config, connection);
  return new EventWorkflows(client, config.TEMPORAL_TASK_QUEUE, config.EVENTS_CONTINUE_AS_NEW_AFTER, {
    db,
    inline: config.EVENT_RELAY_INLINE,
    relay: { graceMs: config.EVENT_RELAY_GRACE_MS, sweepLimit: 500, signalBatch: 100 },
  });
}
