// Single-node mode (API_RUNS_WORKER): the API process also runs the platform worker, every task queue
// and the event sweeper, as src/main/worker.ts does. Invocations started by the API then start eagerly
// on it (src/temporal/local-worker.ts). A separate worker process stays the production shape.
import type { Config } from '../kernel/config/env.js';
import type { Logger } from '../kernel/logging/logger.js';
import { startWorkerMetrics } from '../observability/worker-metrics.js';
import type { Services } from '../operations/services.js';
import { createPlatformWorker } from './temporal-worker.js';

export interface ApiWorker {
  /** Stops polling, lets running activities finish within WORKER_SHUTDOWN_GRACE_MS (+ _FORCE_MS), closes its connection. */
  stop(): Promise<void>;
  /** Why the worker ended by itself (not through stop()), once it has; undefined while it runs or after a stop. */
  readonly failure: Error | undefined;
}

/** What the worker's stop may take at most: its grace, its force time and a margin for closing. */
export const apiWorkerStopMs = (config: Config): number => config.WORKER_SHUTDOWN_GRACE_MS + config.WORKER_SHUTDOWN_FORCE_MS + 5_000;

/**
 * Starts the worker on the API's database client. Resolves once it polls (the API listens only then, so
 * a ready API has a running worker). `onEnded` is called if the worker ends without being asked to (a
 * lost connection, a failure): the API then stops, answering /readyz 503 meanwhile, since it can no
 * longer run what it starts.
 */
export async function startApiWorker(
  config: Config,
  services: Services,
  logger: Logger,
  onEnded: (err: Error) => void,
): Promise<ApiWorker> {
  const metrics = await startWorkerMetrics(config, logger);
  const bundle = config.TEMPORAL_WORKFLOW_BUNDLE ? { codePath: config.TEMPORAL_WORKFLOW_BUNDLE } : undefined;
  const stopping = { graceMs: config.WORKER_SHUTDOWN_GRACE_MS, forceMs: config.WORKER_SHUTDOWN_FORCE_MS };
  const { worker, connection } = await createPlatformWorker(config, services.db, logger, bundle, stopping).catch(async (err: unknown) => {
    await metrics.close();
    throw err;
  });
  let asked = false;
  let failure: Error | undefined;
  const ran = worker
    .run()
    .then(
      () => {
        if (!asked) failure = new Error('the worker stopped');
      },
      (err: unknown) => {
        failure = err instanceof Error ? err : new Error(String(err));
      },
    )
    .finally(async () => {
      await Promise.allSettled([connection.close(), metrics.close()]);
      if (failure && !asked) {
        logger.error({ err: failure }, 'the worker in the API process ended; the API stops');
        onEnded(failure);
      }
    });
  logger.info({ taskQueue: config.TEMPORAL_TASK_QUEUE, namespace: config.TEMPORAL_NAMESPACE }, 'worker running in the API process');
  return {
    async stop() {
      asked = true;
      worker.shutdown();
      await ran;
      if (failure) throw failure;
    },
    get failure() {
      return failure;
    },
  };
}
