import { checkReady } from '../../operations/readiness.js';
import type { RouteDef } from '../route.js';
import { healthSchema, readinessSchema } from '../../presenters/discovery.js';

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
    // Readiness (operations/readiness.ts): 200 with the checks, or a 503 problem when draining or a dependency is down.
    doc: { response: readinessSchema },
    handler: async (ctx) => {
      ctx.body = await checkReady(ctx.services);
    },
  },
];
