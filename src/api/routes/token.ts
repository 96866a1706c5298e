import { decoyHash, verifyPassword } from '../../identity/passwords.js';
import { Problem } from '../../kernel/errors/problem.js';
import type { AppContext } from '../context.js';
import { limitCredentialExchange } from '../middleware/rate-limit.js';
import { readBody } from '../middleware/body.js';
import type { RouteDef } from '../route.js';

type OAuthError = 'invalid_request' | 'invalid_client' | 'unsupported_grant_type' | 'invalid_scope';

/** RFC 6749 §5.2: the token endpoint answers errors in OAuth's own shape, not problem+json. */
function oauthError(ctx: AppContext, error: OAuthError, description: string): void {
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

/** Issues server tokens: `grant_type=client_credentials` (SPEC §4.1, §5.2). No refresh token. */
export const tokenRoutes: RouteDef[] = [
  {
    method: 'post',
    path: '/auth/token',
    access: 'public',
    guard: limitCredentialExchange,
    handler: async (ctx) => {
      let form: Record<string, string>;
      try {
        form = (await readBody(ctx, 'form', ctx.services.config.MAX_BODY_BYTES)) as Record<string, string>;
      } catch (err) {
        if (err instanceof Problem) return oauthError(ctx, 'invalid_request', 'Send an application/x-www-form-urlencoded body.');
        throw err;
      }
      if (!form.grant_type) return oauthError(ctx, 'invalid_request', 'grant_type is required.');
      if (form.grant_type !== 'client_credentials')
        return oauthError(ctx, 'unsupported_grant_type', 'Only client_credentials is supported.');
      const basic = basicCredentials(ctx.get('authorization'));
      const id = basic?.id ?? form.client_id;
      const secret = basic?.secret ?? form.client_secret;
      if (!id || !secret) return oauthError(ctx, 'invalid_client', 'client_id and client_secret are required.');

      const cred = await ctx.services.serverCredentials.get(id);
      // The same scrypt work whether or not the client exists, so timing does not reveal client ids.
      const ok = await verifyPassword(secret, cred?.secret_hash ?? (await decoyHash));
      if (!cred || !ok || !cred.active) return oauthError(ctx, 'invalid_client', 'Client authentication failed.');

      let scopes = cred.scopes;
      if (form.scope) {
        const requested = form.scope.split(' ').filter(Boolean);
        const extra = requested.filter((s) => !cred.scopes.includes(s));
        if (extra.length > 0) return oauthError(ctx, 'invalid_scope', `Not granted to this client: ${extra.join(' ')}.`);
        scopes = requested;
      }
      await ctx.services.serverCredentials.touch(cred._id);
      const issued = await ctx.services.tokens.issue(cred._id, { kind: 'server', gen: cred.generation, scope: scopes.join(' ') });
      ctx.set('Cache-Control', 'no-store');
      ctx.set('Pragma', 'no-cache');
      ctx.body = { ...issued, scope: scopes.join(' ') };
    },
  },
];
