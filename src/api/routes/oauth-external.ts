import { z } from 'zod';
import { ExternalSignInError } from '../../identity/external-idp/index.js';
import { finishExternalSignIn, startExternalSignIn } from '../../operations/sign-in.js';
import { redirect, writeExternalSignIn, writeSession } from '../oauth/browser.js';
import { PageError } from '../oauth/authorization-request.js';
import { afterSignIn, asPage, sealRequest, showLogin, signInDestination, signInTarget, takeExternalSignIn } from '../oauth/pages.js';
import { publicBase } from '../public-url.js';
import { route, type RouteDef } from '../route.js';
import { parse } from '../validate.js';

const params = z.object({ name: z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'must be a provider name') });

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
        const { target, then } = await signInDestination(ctx, query);
        try {
          const callback = `${publicBase(ctx, ctx.services.config)}/oauth/idp/${name}/callback`;
          const { authorizationUrl, held } = await startExternalSignIn(ctx.services, name, callback, then);
          writeExternalSignIn(ctx, name, held);
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
        const held = await takeExternalSignIn(ctx, name);
        // No pending sign-in (expired, or never started here): the person starts again from their application.
        if (!held) throw new PageError('This sign-in has expired or was started elsewhere. Start again from your application.');
        const target = 'request' in held.then ? await signInTarget(ctx, { request: await sealRequest(ctx, held.then.request) }) : held.then;
        try {
          writeSession(ctx, await finishExternalSignIn(ctx.services, name, held.pending, ctx.query));
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
