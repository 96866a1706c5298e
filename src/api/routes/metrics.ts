import { Problem, problems } from '../../kernel/errors/problem.js';
import { metricsRegistry } from '../../observability/metrics.js';
import { metricsAccess, metricsRefusal } from '../../observability/metrics-access.js';
import { collectIndexingBacklog } from '../../operations/readiness.js';
import type { RouteDef } from '../route.js';

/**
 * `GET /metrics`: the Prometheus exposition of this process's series. Public in the route table, for
 * the route's own check decides: the METRICS_TOKEN bearer, else loopback in development only
 * (observability/metrics-access.ts).
 */
export const metricsRoutes: RouteDef[] = [
  {
    method: 'get',
    path: '/metrics',
    access: 'public',
    doc: { summary: "This process's metrics (Prometheus text exposition)", produces: 'text/plain' },
    handler: async (ctx) => {
      const access = metricsAccess(ctx.services.config, {
        authorization: ctx.get('authorization') || undefined,
        remoteAddress: ctx.req.socket.remoteAddress,
      });
      if (access === 'unauthorized')
        throw problems.unauthorized(metricsRefusal(access).detail, ctx.get('authorization') ? 'invalid_token' : null);
      if (access === 'disabled') {
        const { status, slug, title, detail } = metricsRefusal(access);
        throw new Problem(status, slug, title, detail);
      }
      await collectIndexingBacklog(ctx.services);
      ctx.set('Cache-Control', 'no-store');
      ctx.type = metricsRegistry.contentType;
      ctx.body = await metricsRegistry.metrics();
    },
  },
];
