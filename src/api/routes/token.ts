import { Problem } from '../../kernel/errors/problem.js';
import { OAuthError, type OAuthErrorCode } from '../../identity/oauth/errors.js';
import type { AppContext } from '../context.js';
import { limitCredentialExchange } from '../middleware/rate-limit.js';
import { readBody } from '../middleware/body.js';
import type { RouteDef } from '../route.js';
import { clientCredentialsGrant } from '../../operations/server-credentials.js';
import { emptySchema, tokenSchema } from '../../presenters/schemas.js';

/** RFC 6749 §5.2: the token endpoint answers errors in OAuth's own shape, not problem+json. */
function oauthError(ctx: AppContext, error: OAuthErrorCode, description: string): void {
  ctx.status = error === 'invalid_client' ? 401 : 400;
  if (error === 'invalid_client') ctx.set('WWW-Authenticate', 'Basic realm="platform", charset="UTF-8"');
  ctx.set('Cache-Control', 'no-store');
  ctx.body = { error, error_description: description };
}

/** client_secret_basic: `Authorization: Basic base64(urlencoded id ":" urlencoded secret)`. */
function basicCredentials(header: string): { id: string; secret: string } | null {
  const m = /^Basic ([A-Za-z0-9+/=]+)$/i.exec(header);
  if (!m) return null;
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  try {
    return { id: decodeURIComponent(decoded.slice(0, colon)), secret: decodeURIComponent(decoded.slice(colon + 1)) };
  } catch {
    return null; // bad percent-encoding: treated as no client credentials
  }
}

/** An authorization server client, authenticated the way it registered (Basic, form secret, or public). */
function oauthClient(ctx: AppContext, form: Record<string, string>) {
  const basic = basicCredentials(ctx.get('authorization'));
  const via = basic ? 'basic' : form.client_secret ? 'post' : 'none';
  return ctx.services.authorizationServer.authenticateClient(basic?.id ?? form.client_id, basic?.secret ?? form.client_secret, via);
}

/** The authorization server's grants: a client (public, or with its secret) redeems a code or a refresh token. */
async function oauthGrant(ctx: AppContext, form: Record<string, string>): Promise<void> {
  const as = ctx.services.authorizationServer;
  try {
    const client = await oauthClient(ctx, form);
    const issued = form.grant_type === 'authorization_code' ? await as.exchangeCode(client, form) : await as.refresh(client, form);
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Pragma', 'no-cache');
    ctx.body = issued;
  } catch (err) {
    if (err instanceof OAuthError) return oauthError(ctx, err.code, err.description);
    throw err;
  }
}

async function readForm(ctx: AppContext): Promise<Record<string, string> | null> {
  try {
    return (await readBody(ctx, 'form', ctx.services.config.MAX_BODY_BYTES)) as Record<string, string>;
  } catch (err) {
    if (err instanceof Problem) return null;
    throw err;
  }
}

/**
 * The token endpoint: server tokens by `grant_type=client_credentials` (SPEC §4.1, §5.2, no refresh
 * token), and the authorization server's `authorization_code` and `refresh_token` grants.
 */
export const tokenRoutes: RouteDef[] = [
  {
    method: 'post',
    path: '/auth/token',
    access: 'public',
    doc: {
      summary: 'OAuth token endpoint (client credentials, authorization code, refresh)',
      description: 'Answers OAuth errors (`{error, error_description}`), not problem+json.',
      response: tokenSchema,
    },
    guard: limitCredentialExchange,
    handler: async (ctx) => {
      const form = await readForm(ctx);
      if (!form) return oauthError(ctx, 'invalid_request', 'Send an application/x-www-form-urlencoded body.');
      if (!form.grant_type) return oauthError(ctx, 'invalid_request', 'grant_type is required.');
      if (form.grant_type === 'authorization_code' || form.grant_type === 'refresh_token') return oauthGrant(ctx, form);
      if (form.grant_type !== 'client_credentials') {
        return oauthError(ctx, 'unsupported_grant_type', 'Supported: authorization_code, refresh_token, client_credentials.');
      }
      const basic = basicCredentials(ctx.get('authorization'));
      const id = basic?.id ?? form.client_id;
      const secret = basic?.secret ?? form.client_secret;
      if (!id || !secret) return oauthError(ctx, 'invalid_client', 'client_id and client_secret are required.');

      const grant = await clientCredentialsGrant(ctx.services, id, secret, form.scope);
      if ('error' in grant) return oauthError(ctx, grant.error, grant.description);
      ctx.set('Cache-Control', 'no-store');
      ctx.set('Pragma', 'no-cache');
      ctx.body = { ...grant.issued, scope: grant.scope };
    },
  },
  {
    // RFC 7009: a client revokes its refresh token (and with it the grant's family). Always 200.
    method: 'post',
    path: '/oauth/revoke',
    access: 'public',
    doc: { summary: 'OAuth token revocation (RFC 7009)', response: emptySchema },
    guard: limitCredentialExchange,
    handler: async (ctx) => {
      const form = await readForm(ctx);
      if (!form?.token) return oauthError(ctx, 'invalid_request', 'token is required.');
      try {
        await ctx.services.authorizationServer.revoke(await oauthClient(ctx, form), form.token);
      } catch (err) {
        if (err instanceof OAuthError) return oauthError(ctx, err.code, err.description);
        throw err;
      }
      ctx.status = 200;
      ctx.body = {};
    },
  },
];
