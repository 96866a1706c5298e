import { z } from 'zod';
import { ExternalSignInError } from '../../identity/external-idp/index.js';
import { externalSignIn } from '../../operations/sign-in.js';
import type { AppContext } from '../context.js';
import { redirect, writeSession } from '../oauth/browser.js';
import { PageError } from '../oauth/authorization-request.js';
import { afterSignIn, asPage, pendingRequest, showLogin, signInTarget } from '../oauth/pages.js';
import { publicBase } from '../public-url.js';
import { route, type RouteDef } from '../route.js';
import { parse } from '../validate.js';

const externalCookie = 'platform_external_sign_in';
const params = z.object({ name: z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'must be a provider name') });

/** The cookie that holds the pending external sign-in: only the callback path reads it. */
function writeExternal(ctx: AppContext, name: string, value: string | null): void {
  const secure = publicBase(ctx, ctx.services.config).startsWith('https:') ? '; Secure' : '';
  const life = value === null ? '; Max-Age=0' : '; Max-Age=600';
  ctx.append('Set-Cookie', `${externalCookie}=${value ?? ''}; Path=/oauth/idp/${name}/callback; HttpOnly; SameSite=Lax${secure}${life}`);
}

/**
 * Sign-in with an administrator's OpenID Connect provider (SPEC §5.10), from the login page of an
 * authorization request: to the IdP with PKCE, state and nonce, and back to the consent page as the
 * person the IdP vouched for and the allow-list admits. A first sign-in creates the account.
 */
export const oauthExternalRoutes: RouteDef[] = [
  route({
    method: 'get',
    path: '/oauth/idp/:name',
    access: 'public',
    doc: {
      summary: 'Sign in with an external identity provider',
      status: 303,
      responseDescription: "To the provider's authorization endpoint",
    },
    query: z.object({ request: z.string().min(1).max(8192).optional(), next: z.literal('consents').optional() }),
    handler: (ctx, query) =>
      asPage(ctx, async () => {
        const { name } = parse(params, ctx.params, 'path');
        const target = await signInTarget(ctx, query);
        try {
          const callback = `${publicBase(ctx, ctx.services.config)}/oauth/idp/${name}/callback`;
          const { authorizationUrl, pending } = await ctx.services.externalSignIn.providers.beginSignIn(name, callback);
          const then = 'request' in target ? { request: (await pendingRequest(ctx, target.request)).request } : target;
          writeExternal(ctx, name, await ctx.services.browserSessions.sealExternalSignIn(pending, then));
          redirect(ctx, authorizationUrl);
        } catch (err) {
          if (!(err instanceof ExternalSignInError)) throw err;
          await showLogin(ctx, target, 502, err.message);
        }
      }),
  }),
  {
    method: 'get',
    path: '/oauth/idp/:name/callback',
    access: 'public',
    doc: { summary: "The identity provider's redirect back", status: 303, responseDescription: 'On to where signing in leads' },
    query: 'foreign',
    handler: (ctx) =>
      asPage(ctx, async () => {
        const { name } = parse(params, ctx.params, 'path');
        const held = await ctx.services.browserSessions.openExternalSignIn(ctx.cookies.get(externalCookie));
        writeExternal(ctx, name, null);
        // No pending sign-in (expired, or never started here): the person starts again from their application.
        if (!held) throw new PageError('This sign-in has expired or was started elsewhere. Start again from your application.');
        const target =
          'request' in held.then
            ? await signInTarget(ctx, { request: await ctx.services.browserSessions.sealRequest(held.then.request) })
            : held.then;
        try {
          if (held.pending.provider !== name) {
            throw new ExternalSignInError('invalid_state', 'This sign-in link is not valid any more. Please start the sign-in again.');
          }
          const personId = await externalSignIn(ctx.services, held.pending, ctx.query);
          writeSession(ctx, await ctx.services.browserSessions.startSession(personId, `oidc:${name}`));
          redirect(ctx, afterSignIn(target));
        } catch (err) {
          if (!(err instanceof ExternalSignInError)) throw err;
          ctx.services.logger.warn(
            { code: err.code, detail: err.detail, provider: name, request_id: ctx.state.requestId },
            'external sign-in refused',
          );
          await showLogin(ctx, target, err.code === 'unreachable' ? 502 : 403, err.message);
        }
      }),
  },
];
