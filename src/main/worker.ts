// Production entry point of the Temporal worker process.
import { ConfigError, loadConfig } from '../kernel/config/env.js';
import { createLogger } from '../kernel/logging/logger.js';
import { startTracing } from '../observability/tracing.js';
import { startWorkerMetrics } from '../observability/worker-metrics.js';
import { createMongoClient, openDatabase } from '../store/mongo.js';
import { createPlatformWorker } from './temporal-worker.js';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.LOG_LEVEL);
  const tracing = startTracing(config, 'worker', logger);
  const metrics = await startWorkerMetrics(config, logger);
  const mongo = createMongoClient(config.mongodbUri, config.STORAGE_TIMEOUT_MS);
  const db = openDatabase(mongo, config.MONGODB_DB, config.STORAGE_TIMEOUT_MS, (call, ms) =>
    logger.warn({ call, ms, deadline_ms: config.STORAGE_TIMEOUT_MS }, 'slow storage call'),
  );
  const bundle = config.TEMPORAL_WORKFLOW_BUNDLE ? { codePath: config.TEMPORAL_WORKFLOW_BUNDLE } : undefined;
  const { worker, connection } = await createPlatformWorker(config, db, logger, bundle);
  logger.info({ taskQueue: config.TEMPORAL_TASK_QUEUE, namespace: config.TEMPORAL_NAMESPACE }, 'worker running');
  // The worker shuts down gracefully on SIGINT/SIGTERM by itself (Runtime's default shutdown signals).
  await worker.run();
  await connection.close();
  await mongo.close();
  await metrics.close();
  await tracing.shutdown();
}

main().catch((err) => {
  if (err instanceof ConfigError) console.error(err.message);
  else console.error(`worker failed: ${(err as Error).message}`);
  process.exit(1);
});
