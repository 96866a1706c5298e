import type { Next } from 'koa';
import { PasswordCheckBusy } from '../../identity/passwords.js';
import { Problem, problems } from '../../kernel/errors/problem.js';
import { isStorageUnavailable } from '../../store/deadline.js';
import type { AppContext } from '../context.js';
import { clientClosedStatus } from './body.js';

/**
 * Turns every failure into RFC 9457 problem+json. Unknown routes (404) and wrong methods (405, set by
 * the router's allowedMethods) become problems too. Unexpected errors are logged with the request id
 * and answered with a generic 500: no message or stack reaches the client. A client that hung up
 * before its request arrived whole is not a server error: 499, logged at info without a stack (anyone
 * can do it, so it must not fill the error log or trip 5xx alerts). That 499 comes only from the body
 * reader, which alone can tell a hang-up from another failure.
 */
export async function problemResponses(ctx: AppContext, next: Next): Promise<void> {
  let problem: Problem | undefined;
  try {
    await next();
    if (ctx.status === 405) problem = problems.methodNotAllowed(ctx.method, ctx.response.get('Allow').split(/,\s*/).filter(Boolean));
    else if (ctx.status === 501) problem = new Problem(501, 'not-implemented', 'Method not implemented', `${ctx.method} is not supported.`);
    else if (ctx.status === 404 && ctx.body == null) problem = problems.routeNotFound(ctx.path);
  } catch (err) {
    const unavailable = isStorageUnavailable(err);
    // A client abort is classified where the body is read (middleware/body.ts throws its own 499
    // problem): a storage failure or a bug on a request whose client also hung up stays a 503 or 500.
    problem =
      err instanceof Problem
        ? err
        : err instanceof PasswordCheckBusy
          ? problems.tooBusy()
          : unavailable
            ? problems.storageUnavailable()
            : undefined;
    if (problem?.status === clientClosedStatus) {
      ctx.services.logger.info(
        { request_id: ctx.state.requestId, method: ctx.method, path: ctx.path },
        'client closed the request before it arrived whole',
      );
    }
    if (unavailable) ctx.services.logger.warn({ request_id: ctx.state.requestId, err }, 'storage unavailable');
    if (!problem) {
      ctx.services.logger.error({ request_id: ctx.state.requestId, err }, 'unhandled error');
      problem = problems.internal();
    }
  }
  if (!problem) return;
  ctx.status = problem.status;
  for (const [name, value] of Object.entries(problem.headers)) ctx.set(name, value);
  ctx.body = { ...problem.body(ctx.path), request_id: ctx.state.requestId };
  ctx.type = 'application/problem+json';
}
