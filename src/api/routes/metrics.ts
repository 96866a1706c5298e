import { Problem, problems } from '../../kernel/errors/problem.js';
import { collectFailures, indexingBacklog, metricsRegistry } from '../../observability/metrics.js';
import { metricsAccess, metricsRefusal } from '../../observability/metrics-access.js';
import type { Services } from '../../operations/services.js';
import { indexingQueue } from '../../workflows/contracts/queues.js';
import type { RouteDef } from '../route.js';

/** How long a scrape waits for the backlog's count before it answers without it. */
export const backlogDeadlineMs = 2000;

/** A visibility query's string literal. */
const literal = (value: string) => `"${value.replace(/["\\]/g, (c) => `\\${c}`)}"`;

/**
 * The indexing backlog, counted at scrape time: running `index-artifact` workflows on this
 * deployment's indexing queue (each is one revision waiting for its embedding). A count that fails or
 * misses its deadline leaves the gauge NaN, never a stale number, and is counted as a collect failure.
 */
export async function collectIndexingBacklog(services: Pick<Services, 'temporal' | 'config'>): Promise<void> {
  const query = [
    'RunKind = "index-artifact"',
    'ExecutionStatus = "Running"',
    `TaskQueue = ${literal(indexingQueue(services.config.TEMPORAL_TASK_QUEUE))}`,
  ].join(' AND ');
  try {
    const { connection, workflow } = services.temporal;
    const { count } = await connection.withDeadline(Date.now() + backlogDeadlineMs, () => workflow.count(query));
    indexingBacklog.set(count);
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
