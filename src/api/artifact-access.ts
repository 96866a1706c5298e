import { problems } from '../kernel/errors/problem.js';
import type { AppContext } from './context.js';
import { idParam, parse } from './validate.js';

/**
 * The artifact id of `/artifacts/:id...`. `/artifacts/search` matches that shape too, for any method
 * but its own POST: answer that with 405, not "id must be a UUID".
 */
export function artifactId(ctx: AppContext): string {
  if (ctx.params.id === 'search') throw problems.methodNotAllowed(ctx.method, ['POST']);
  return parse(idParam, ctx.params, 'path').id;
}
