import type { Middleware } from 'koa';
import { httpDuration, httpRequests } from './metrics.js';

/** The label of a request no route matched: raw paths never become labels (their ids would grow the series without bound). */
export const unmatchedRoute = 'unmatched';

/** Methods kept as labels; anything else a client sends is `other`. */
const methods = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * Counts each request by route template (the router's matched path, e.g. `/artifacts/:id`), method
 * and status, with its latency. Errors have become problem responses further in, so the status is the
 * one sent; a failure that still escapes counts as 500.
 */
export const httpMetrics: Middleware = async (ctx, next) => {
  const started = performance.now();
  let status: number | undefined;
  try {
    await next();
    status = ctx.status;
  } catch (err) {
    status = (err as { status?: number }).status ?? 500;
    throw err;
  } finally {
    const matched = (ctx as { _matchedRoute?: unknown })._matchedRoute;
    const route = typeof matched === 'string' ? matched : unmatchedRoute;
    const method = methods.has(ctx.method) ? ctx.method : 'other';
    httpRequests.inc({ route, method, status: String(status ?? 500) });
    httpDuration.observe({ route, method }, (performance.now() - started) / 1000);
  }
};
