import { randomUUID } from 'node:crypto';
import type { Next } from 'koa';
import type { AppContext } from '../context.js';

const acceptableId = /^[A-Za-z0-9._-]{1,128}$/;

/** Gives every request an id (a sane incoming X-Request-Id is kept), echoes it, and logs one line per request. */
export async function requestLog(ctx: AppContext, next: Next): Promise<void> {
  const incoming = ctx.get('x-request-id');
  ctx.state.requestId = acceptableId.test(incoming) ? incoming : randomUUID();
  ctx.set('X-Request-Id', ctx.state.requestId);
  const started = performance.now();
  try {
    await next();
  } finally {
    ctx.services.logger.info(
      {
        request_id: ctx.state.requestId,
        method: ctx.method,
        path: ctx.path, // never the query string: it may carry codes or tokens
        status: ctx.status,
        ms: Math.round((performance.now() - started) * 10) / 10,
        principal: ctx.state.principal?.subject,
      },
      'request',
    );
  }
}
