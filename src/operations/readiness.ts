import { Problem } from '../kernel/errors/problem.js';
import { collectFailures, indexingBacklog } from '../observability/metrics.js';
import { within } from '../temporal/within.js';
import type { Services } from './services.js';

/** What /readyz and /metrics ask of the dependencies: each under its own deadline. */

const drainingServices = new WeakSet<Services>();

/** From now on the API built on these services is shutting down: /readyz answers 503 so load balancers stop sending. */
export function markDraining(services: Services): void {
  drainingServices.add(services);
}

export const isDraining = (services: Services): boolean => drainingServices.has(services);

const workers = new WeakMap<Services, () => boolean>();

/** Single-node mode (API_RUNS_WORKER): /readyz also reports the API's own worker, `up` while it runs. */
export function reportWorker(services: Services, running: () => boolean): void {
  workers.set(services, running);
}

const checkTimeoutMs = 2000;

/**
 * Each dependency the API needs, checked concurrently. `worker`: in single-node mode
 * (API_RUNS_WORKER), whether the API's own worker runs, reported as one more dependency.
 */
export async function readiness(services: Services, worker?: () => boolean): Promise<Record<string, 'up' | 'down'>> {
  const checks: Record<string, () => Promise<unknown>> = {
    // A real read, not a ping: an engine can answer pings while every query waits (issue 17).
    mongodb: () => services.db.collection('users').findOne({}, { projection: { _id: 1 }, maxTimeMS: checkTimeoutMs }),
    temporal: () => {
      const probe = services.temporalProbe;
      return probe.withDeadline(Date.now() + checkTimeoutMs, () => probe.workflowService.getSystemInfo({}));
    },
  };
  if (worker)
    checks.worker = async () => {
      if (!worker()) throw new Error('the worker in the API process stopped');
    };
  const entries = await Promise.all(
    Object.entries(checks).map(async ([name, check]) => {
      try {
        // Unanswered within the deadline (null) or failed: down.
        return [name, (await within(check(), checkTimeoutMs)) ? 'up' : 'down'] as const;
      } catch {
        return [name, 'down'] as const;
      }
    }),
  );
  return Object.fromEntries(entries);
}

/**
 * Readiness: not draining, and every dependency answers a real call within its deadline. Ready: the
 * checks; else a 503 `not-ready` problem (draining: retry in a second; a dependency down: the checks).
 */
export async function checkReady(services: Services): Promise<{ status: 'ready'; checks: Record<string, 'up' | 'down'> }> {
  if (isDraining(services)) {
    throw new Problem(503, 'not-ready', 'Not ready', 'This replica is shutting down.', { draining: true }, { 'Retry-After': '1' });
  }
  const checks = await readiness(services, workers.get(services));
  const down = Object.entries(checks)
    .filter(([, s]) => s === 'down')
    .map(([name]) => name);
  if (down.length > 0) throw new Problem(503, 'not-ready', 'Not ready', `Unreachable: ${down.join(', ')}.`, { checks });
  return { status: 'ready', checks };
}

/** How long a scrape waits for the backlog's count before it answers without it. */
export const backlogDeadlineMs = 2000;

/**
 * The indexing backlog, counted at scrape time: revisions waiting in the embedding backlog (issue
 * #23: one indexing workflow queues them there and embeds them in batches). A count that fails or
 * misses its deadline leaves the gauge NaN, never a stale number, and is counted as a collect failure.
 */
export async function collectIndexingBacklog(services: Pick<Services, 'db'>): Promise<void> {
  try {
    indexingBacklog.set(await services.db.collection('embedding_backlog').countDocuments({}, { maxTimeMS: backlogDeadlineMs }));
  } catch {
    indexingBacklog.set(Number.NaN);
    collectFailures.inc({ collector: 'indexing_backlog' });
  }
}
