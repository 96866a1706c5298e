import { Problem } from '../../kernel/errors/problem.js';
import { readiness } from '../../operations/readiness.js';
import type { Services } from '../../operations/services.js';
import type { RouteDef } from '../route.js';
import { healthSchema, readinessSchema } from '../../presenters/discovery.js';

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

export const healthRoutes: RouteDef[] = [
  // Liveness: the process's event loop answers. No dependency is checked (an engine that is down must not
  // get every replica restarted), and it stays 200 while draining, so the orchestrator lets the drain finish.
  {
    method: 'get',
    path: '/healthz',
    access: 'public',
    doc: { response: healthSchema },
    handler: (ctx) => {
      ctx.body = { status: 'ok' };
    },
  },
  {
    method: 'get',
    path: '/readyz',
    access: 'public',
    // Readiness: not draining, and every dependency answers a real call within its deadline.
    doc: { response: readinessSchema },
    handler: async (ctx) => {
      if (isDraining(ctx.services)) {
        throw new Problem(503, 'not-ready', 'Not ready', 'This replica is shutting down.', { draining: true }, { 'Retry-After': '1' });
      }
      const checks = await readiness(ctx.services, workers.get(ctx.services));
      const down = Object.entries(checks)
        .filter(([, s]) => s === 'down')
        .map(([name]) => name);
      if (down.length > 0) throw new Problem(503, 'not-ready', 'Not ready', `Unreachable: ${down.join(', ')}.`, { checks });
      ctx.body = { status: 'ready', checks };
    },
  },
];
