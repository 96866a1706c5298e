import { decodeJwt } from 'jose';
import type { Next } from 'koa';
import { principalFromBearer } from '../../identity/credentials.js';
import { isHuman, type Principal, type Scope } from '../../identity/principal.js';
import { TokenError } from '../../identity/tokens.js';
import { Problem, problems } from '../../kernel/errors/problem.js';
import type { AppContext, AuthedContext } from '../context.js';
import { acceptedAudiences, mcpClientResourcePath, mcpPath, publicBase, resourcePathOf } from '../public-url.js';
import { limitPrincipal } from './rate-limit.js';

/** RFC 9728 protected resource metadata: where a client learns how to get a token for this API. */
export const protectedResourceMetadataUrl = (apiUri: string, resourcePath = '') =>
  `${apiUri}/.well-known/oauth-protected-resource${resourcePath}`;

export { mcpPath };

const bearer = /^Bearer ([A-Za-z0-9._~+/-]+=*)$/i;
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The principal a bearer token (and X-On-Behalf-Of) stands for, as the credentials are now. */
async function resolve(ctx: AppContext, token: string): Promise<Principal> {
  const principal = await principalFromBearer(ctx.services, token, acceptedAudiences(ctx, ctx.services.config));
  const onBehalfOf = ctx.get('x-on-behalf-of');
  return onBehalfOf ? actFor(ctx, principal, onBehalfOf) : principal;
}

/**
 * For a response that outlives its request (an event stream): the request's credentials resolved
 * again, or null once they no longer hold (a revoked key or session, a deleted person, a withdrawn
 * consent). Nothing is audited again.
 */
export async function stillAuthenticated(ctx: AppContext): Promise<Principal | null> {
  const token = bearer.exec(ctx.get('authorization'))?.[1];
  if (!token) return null;
  try {
    return await resolve(ctx, token);
  } catch (err) {
    if (err instanceof TokenError || err instanceof Problem) return null;
    throw err;
  }
}

/**
 * Why a token whose audience is not accepted here was refused, in words a person acting on the 401
 * understands: a token for /mcp or for a configuration's endpoint (issue #36) is good only there. The
 * audience is read unverified, only to choose the words, and only one of our own resources is named.
 */
function audienceRefusal(ctx: AppContext, token: string): string {
  let audience: unknown;
  try {
    audience = decodeJwt(token).aud;
  } catch {
    return 'The token is not valid.';
  }
  const bases = [ctx.services.config.apiUri, publicBase(ctx, ctx.services.config)];
  for (const aud of [audience].flat()) {
    const base = typeof aud === 'string' ? bases.find((b) => aud.startsWith(`${b}/`)) : undefined;
    const path = base ? (aud as string).slice(base.length) : '';
    const own =
      path === mcpPath ? `the MCP endpoint ${mcpPath}` : mcpClientResourcePath(path) && `the MCP client configuration endpoint ${path}`;
    if (own) return `This token's audience is ${own}: it is accepted only there. Sign in for this resource (see resource_metadata).`;
  }
  return "The token's audience is another resource: it is not accepted here.";
}

/**
 * Resolves `Authorization: Bearer <jwt | api key>` and `X-On-Behalf-Of` into ctx.state.principal, or
 * answers 401 with WWW-Authenticate. Requests made on someone's behalf are audited.
 */
export async function authenticate(ctx: AppContext, next: Next): Promise<void> {
  const { config } = ctx.services;
  // Each protected resource names its own metadata: the API, /mcp, and each configuration's endpoint.
  const metadata = protectedResourceMetadataUrl(publicBase(ctx, config), resourcePathOf(ctx.path));
  const header = ctx.get('authorization');
  if (!header) throw problems.unauthorized('A bearer token is required.', null, metadata);
  const match = bearer.exec(header);
  if (!match) throw problems.unauthorized('The Authorization header must be "Bearer <token>".', 'invalid_request', metadata);
  let principal: Principal;
  try {
    principal = await resolve(ctx, match[1]!);
  } catch (err) {
    if (err instanceof TokenError) {
      const reason = err.message === 'token claim aud is invalid' ? audienceRefusal(ctx, match[1]!) : err.message;
      throw problems.unauthorized(reason, 'invalid_token', metadata);
    }
    throw err;
  }
  ctx.state.principal = principal;
  limitPrincipal(ctx, principal);
  if (!principal.onBehalfOf) return next();
  let status = 500;
  try {
    await next();
    status = ctx.status;
  } catch (err) {
    status = err instanceof Problem ? err.status : 500;
    throw err;
  } finally {
    await ctx.services.audit
      .record({
        credential_kind: principal.actor.kind,
        credential_id: principal.actor.id,
        person_id: principal.subject,
        method: ctx.method,
        path: ctx.path,
        status,
        request_id: ctx.state.requestId,
      })
      .catch((err) => ctx.services.logger.error({ err, request_id: ctx.state.requestId }, 'audit entry not written'));
  }
}

/**
 * X-On-Behalf-Of (SPEC §5.5): a credential acts for a person who has consented to it (or for its own
 * creator). Access becomes the credential's scopes and filters over the person's own grants.
 */
async function actFor(ctx: AppContext, principal: Principal, personId: string): Promise<Principal> {
  // Only server credentials and API keys act for people who consented to them. A person's own token,
  // and an OAuth client's token (already a person's, and a public client is anyone's to redeem for
  // themselves), never do.
  if (principal.actor.kind !== 'server_credential' && principal.actor.kind !== 'api_key')
    throw problems.onBehalfOfRefused("X-On-Behalf-Of is for server credentials and API keys, not a person's or an OAuth client's token.");
  if (!uuid.test(personId))
    throw problems.validation('X-On-Behalf-Of must be a person id (UUID).', [{ name: 'X-On-Behalf-Of', reason: 'must be a UUID' }]);
  if (personId !== principal.subject) {
    const [person, consented] = await Promise.all([
      ctx.services.users.findById(personId),
      ctx.services.consents.has(personId, principal.actor.kind, principal.actor.id),
    ]);
    if (!person || !consented) {
      throw problems.onBehalfOfRefused(
        `Person ${personId} has not authorized ${principal.actor.kind} ${principal.actor.id} to act for them.`,
      );
    }
  }
  return { ...principal, subject: personId, onBehalfOf: true };
}

// The checks below run after `authenticate` (route.ts mounts them behind it): the principal is there.

export function requireScope(scope: Scope) {
  return (ctx: AuthedContext, next: Next) => {
    if (!ctx.state.principal.scopes.allows(scope)) throw problems.insufficientScope(scope);
    return next();
  };
}

/** Credential management and other person-only operations (SPEC §5.4). */
export function requireHuman(ctx: AuthedContext, next: Next) {
  if (!isHuman(ctx.state.principal)) throw problems.humanRequired();
  return next();
}

export function requireAdmin(ctx: AuthedContext, next: Next) {
  if (!isHuman(ctx.state.principal)) throw problems.humanRequired();
  if (!ctx.state.principal.isAdmin) throw problems.forbidden('This operation needs an administrator.');
  return next();
}
