import { Problem } from '../../kernel/errors/problem.js';
import type { Services } from '../../operations/services.js';
import type { RouteDef } from '../route.js';

const checkTimeoutMs = 2000;

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

function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  promise.catch(() => undefined); // a check that loses the race may still fail later: not an unhandled rejection
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('timed out')), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Each dependency the API needs, checked concurrently. */
export async function readiness(services: Services): Promise<Record<string, 'up' | 'down'>> {
  const checks: Record<string, () => Promise<unknown>> = {
    // A real read, not a ping: an engine can answer pings while every query waits (issue 17).
    mongodb: () => services.db.collection('users').findOne({}, { projection: { _id: 1 }, maxTimeMS: checkTimeoutMs }),
    temporal: () => {
      const probe = services.temporalProbe;
      return probe.withDeadline(Date.now() + checkTimeoutMs, () => probe.workflowService.getSystemInfo({}));
    },
  };
  const worker = workers.get(services);
  if (worker)
    checks.worker = async () => {
      if (!worker()) throw new Error('the worker in the API process stopped');
    };
  const entries = await Promise.all(
    Object.entries(checks).map(async ([name, check]) => {
      try {
        await within(check(), checkTimeoutMs);
        return [name, 'up'] as const;
      } catch {
        return [name, 'down'] as const;
      }
    }),
  );
  return Object.fromEntries(entries);
}

export const healthRoutes: RouteDef[] = [
  // Liveness: the process's event loop answers. No dependency is checked (an engine that is down must not
  // get every replica restarted), and it stays 200 while draining, so the orchestrator lets the drain finish.
  {
    method: 'get',
    path: '/healthz',
    access: 'public',
    handler: (ctx) => {
      ctx.body = { status: 'ok' };
    },
  },
  {
    method: 'get',
    path: '/readyz',
    access: 'public',
    // Readiness: not draining, and every dependency answers a real call within its deadline.
    handler: async (ctx) => {
      if (isDraining(ctx.services)) {
        throw new Problem(503, 'not-ready', 'Not ready', 'This replica is shutting down.', { draining: true }, { 'Retry-After': '1' });
      }
      const checks = await readiness(ctx.services);
      const down = Object.entries(checks)
        .filter(([, s]) => s === 'down')
        .map(([name]) => name);
      if (down.length > 0) throw new Problem(503, 'not-ready', 'Not ready', `Unreachable: ${down.join(', ')}.`, { checks });
      ctx.body = { status: 'ready', checks };
    },
  },
];
