// Production entry point of the Temporal worker process.
import { ConfigError, loadConfig } from '../kernel/config/env.js';
import { createLogger } from '../kernel/logging/logger.js';
import { startTracing } from '../observability/tracing.js';
import { startWorkerMetrics } from '../observability/worker-metrics.js';
import { outboundLine } from '../net/allow-list.js';
import { createStoreClient, openDatabase } from '../store/mongo.js';
import { onShutdownSignal } from './graceful.js';
import { createPlatformWorker } from './temporal-worker.js';

/** Closing the connections, metrics and tracing after the workers stopped. */
const closeMarginMs = 5000;

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.LOG_LEVEL);
  const tracing = startTracing(config, 'worker', logger);
  const metrics = await startWorkerMetrics(config, logger);
  const store = createStoreClient(config.storeUri, config.STORAGE_TIMEOUT_MS, config.STORE_POOL_SIZE);
  const db = openDatabase(store, config.MONGODB_DB, config.STORAGE_TIMEOUT_MS, (call, ms) =>
    logger.warn({ call, ms, deadline_ms: config.STORAGE_TIMEOUT_MS }, 'slow storage call'),
  );
  const bundle = config.TEMPORAL_WORKFLOW_BUNDLE ? { codePath: config.TEMPORAL_WORKFLOW_BUNDLE } : undefined;
  const stopping = { graceMs: config.WORKER_SHUTDOWN_GRACE_MS, forceMs: config.WORKER_SHUTDOWN_FORCE_MS };
  const { worker, connection } = await createPlatformWorker(config, db, logger, bundle, stopping);
  // The one shutdown path (the SDK's own signal handling is off, see installRuntime): SIGTERM stops the
  // sweeper and polling, lets running activities finish within the grace, then run() resolves and we close.
  // Past grace + force + a margin for closing, or on a second signal, the process exits 1.
  let ran: Promise<void> | undefined;
  onShutdownSignal({
    what: 'worker',
    logger,
    deadlineMs: stopping.graceMs + stopping.forceMs + closeMarginMs,
    stop: async () => {
      worker.shutdown();
      await ran;
    },
  });
  logger.info(
    { taskQueue: config.TEMPORAL_TASK_QUEUE, namespace: config.TEMPORAL_NAMESPACE, outbound: outboundLine(config) },
    'worker running',
  );
  ran = worker.run().finally(async () => {
    await connection.close();
    await store.close();
    await metrics.close();
    await tracing.shutdown();
  });
  await ran; // after a signal, onShutdownSignal logs the stop and exits; a failure throws (exit 1)
}

main().catch((err) => {
  if (err instanceof ConfigError) console.error(err.message);
  else console.error(`worker failed: ${(err as Error).message}`);
  process.exit(1);
});
