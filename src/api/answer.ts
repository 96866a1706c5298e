import type { Answer } from '../operations/mcp-servers.js';
import type { AppContext } from './context.js';

/** An operation's answer as the response: its status, body and, for a run still going, where to poll. */
export function answer(ctx: AppContext, a: Answer): void {
  ctx.status = a.status;
  if (a.location) ctx.set('Location', a.location);
  ctx.body = a.body;
}
