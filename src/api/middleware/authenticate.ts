import type { Next } from 'koa';
import { userPrincipal, type Scope } from '../../auth/principal.js';
import { TokenError } from '../../auth/tokens.js';
import { problems } from '../../errors/problem.js';
import type { AppContext } from '../context.js';

const bearer = /^Bearer ([A-Za-z0-9._~+/-]+=*)$/i;

/** Resolves `Authorization: Bearer <jwt>` into ctx.state.principal, or answers 401 with WWW-Authenticate. */
export async function authenticate(ctx: AppContext, next: Next): Promise<void> {
  const header = ctx.get('authorization');
  if (!header) throw problems.unauthorized('A bearer token is required.', 'invalid_request');
  const match = bearer.exec(header);
  if (!match) throw problems.unauthorized('The Authorization header must be "Bearer <token>".', 'invalid_request');
  let claims;
  try {
    claims = await ctx.services.tokens.verify(match[1]!);
  } catch (err) {
    if (err instanceof TokenError) throw problems.unauthorized(err.message);
    throw err;
  }
  const user = await ctx.services.users.findById(claims.sub);
  if (!user) throw problems.unauthorized('The token subject no longer exists.');
  ctx.state.principal = userPrincipal(user._id, user.is_admin);
  return next();
}

export function requireScope(scope: Scope) {
  return (ctx: AppContext, next: Next) => {
    if (!ctx.state.principal!.scopes.has(scope)) {
      throw problems.forbidden(`This operation needs the ${scope} scope.`);
    }
    return next();
  };
}

export function requireAdmin(ctx: AppContext, next: Next) {
  if (!ctx.state.principal!.isAdmin) throw problems.forbidden('This operation needs an administrator.');
  return next();
}
