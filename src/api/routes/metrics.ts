import { Problem, problems } from '../../kernel/errors/problem.js';
import { collectFailures, indexingBacklog, metricsRegistry } from '../../observability/metrics.js';
import { metricsAccess, metricsRefusal } from '../../observability/metrics-access.js';
import type { Services } from '../../operations/services.js';
import type { RouteDef } from '../route.js';

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
