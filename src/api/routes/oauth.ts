import { OAuthError } from '../../identity/oauth/errors.js';
import { authorize, decideConsent } from '../../operations/authorizations.js';
import { registerClient } from '../../operations/oauth-clients.js';
import { signOut, startPasswordSession } from '../../operations/sign-in.js';
import { errorPage } from '../../presenters/sign-in-pages.js';
import { registeredClientSchema } from '../../presenters/discovery.js';
import { limitCredentialExchange } from '../middleware/rate-limit.js';
import { parseAuthorizationRequest } from '../oauth/authorization-request.js';
import { readSession, redirect, sameOriginForm, sendPage, writeSession } from '../oauth/browser.js';
import { afterSignIn, asPage, formTokenMatches, pendingRequest, sealRequest, showLogin, showStep, signInTarget } from '../oauth/pages.js';
import { signInAttempt } from '../password-sign-in.js';
import type { RouteDef } from '../route.js';

type Form = Record<string, string | undefined>;

/** The scopes the consent form ticked (which of them the request asked for is the operation's to see). */
function tickedScopes(form: Form): string[] {
  return Object.keys(form)
    .filter((k) => k.startsWith('scope:') && form[k] === 'on')
    .map((k) => k.slice('scope:'.length));
}

/** The workspaces the consent form ticked: `all`, or their ids (the page offers at most 100). */
function tickedWorkspaces(form: Form): string[] | 'all' {
  if (form.workspaces !== 'selected') return 'all';
  return Object.keys(form)
    .filter((k) => k.startsWith('workspace:') && form[k] === 'on')
    .map((k) => k.slice('workspace:'.length))
    .slice(0, 100);
}

/**
 * The authorization endpoint and the pages a person sees on the way: sign in (password, or an
 * external identity provider), then allow or deny the client's scopes in chosen workspaces.
 */
export const oauthRoutes: RouteDef[] = [
  {
    method: 'get',
    path: '/oauth/authorize',
    access: 'public',
    doc: { summary: 'OAuth authorization endpoint (a sign-in or consent page)', produces: 'text/html' },
    // Counted with the credential exchanges: a metadata document client_id makes us fetch a URL.
    guard: limitCredentialExchange,
    query: 'foreign',
    handler: (ctx) =>
      asPage(ctx, async () => {
        const sealedParam = typeof ctx.query.pending === 'string' ? ctx.query.pending : undefined;
        const pending = sealedParam ? await pendingRequest(ctx, sealedParam) : await parseAuthorizationRequest(ctx);
        const sealed = sealedParam ?? (await sealRequest(ctx, pending.request));
        await showStep(ctx, await authorize(ctx.services, readSession(ctx), pending), pending, sealed);
      }),
  },
  {
    method: 'post',
    path: '/oauth/login',
    access: 'public',
    doc: {
      summary: "Sign in (the sign-in page's form)",
      status: 303,
      responseDescription: 'On to the consent page or the client (the page again, with what was wrong, otherwise)',
    },
    guard: (ctx) => (sameOriginForm(ctx), limitCredentialExchange(ctx)),
    body: 'form',
    handler: (ctx) =>
      asPage(ctx, async () => {
        const form = ctx.state.body as Form;
        const target = await signInTarget(ctx, form);
        const email = (form.email ?? '').trim();
        if (!email || !form.password) return showLogin(ctx, target, 400, 'Enter your e-mail and password.', email);
        const signedIn = await startPasswordSession(ctx.services, signInAttempt(ctx, email), form.password.slice(0, 1024));
        if (!('session' in signedIn)) return showLogin(ctx, target, signedIn.status, signedIn.error, email);
        writeSession(ctx, signedIn.session);
        redirect(ctx, afterSignIn(target));
      }),
  },
  {
    method: 'post',
    path: '/oauth/consent',
    access: 'public',
    doc: {
      summary: "Allow or deny a client (the consent page's form)",
      status: 303,
      responseDescription: "Back to the client's redirect URI, with a code or an error",
    },
    // Counted with the credential exchanges, like the sign-in form: an allowed decision issues a code.
    guard: (ctx) => (sameOriginForm(ctx), limitCredentialExchange(ctx)),
    body: 'form',
    handler: (ctx) =>
      asPage(ctx, async () => {
        const form = ctx.state.body as Form;
        const pending = await pendingRequest(ctx, form.request);
        const step = await decideConsent(ctx.services, readSession(ctx), pending, {
          fromOurPage: formTokenMatches(ctx, form.form_token, pending.sealed),
          decision: form.decision,
          scopes: tickedScopes(form),
          workspaces: tickedWorkspaces(form),
        });
        await showStep(ctx, step, pending, pending.sealed);
      }),
  },
  {
    method: 'post',
    path: '/oauth/sign-out',
    access: 'public',
    doc: {
      summary: 'Sign out of the browser session',
      status: 303,
      responseDescription: 'Back to the authorization request (or a page saying so)',
    },
    // Not rate-limited: the per-address bucket is shared with sign-in, so anyone flooding it from the
    // victim's address (a shared NAT) would keep the victim signed in. A sign-out stores something only
    // for a validly signed session cookie, once (an idempotent insert keyed by the session's id).
    guard: sameOriginForm,
    body: 'form',
    handler: (ctx) =>
      asPage(ctx, async () => {
        const form = ctx.state.body as Form;
        try {
          // Ended on the server (for every replica), not only in this browser: a copy of the cookie dies too.
          await signOut(ctx.services, readSession(ctx));
        } finally {
          // Cleared even when the end could not be stored (storage down, 503): this browser is signed out
          // either way; only a copy of the cookie taken earlier would outlive it.
          writeSession(ctx, null);
        }
        if (form.request) return redirect(ctx, `/oauth/authorize?pending=${encodeURIComponent(form.request)}`);
        sendPage(ctx, 200, errorPage('Signed out', 'You are signed out.'));
      }),
  },
  {
    // RFC 7591 dynamic client registration: open, as MCP clients expect, and rate-limited per address.
    method: 'post',
    path: '/oauth/register',
    access: 'public',
    doc: { summary: 'OAuth dynamic client registration (RFC 7591)', status: 201, response: registeredClientSchema },
    guard: limitCredentialExchange,
    body: 'json',
    handler: async (ctx) => {
      ctx.set('Cache-Control', 'no-store');
      try {
        ctx.body = await registerClient(ctx.services, ctx.state.body);
        ctx.status = 201;
      } catch (err) {
        if (!(err instanceof OAuthError)) throw err;
        ctx.status = 400;
        ctx.body = { error: err.code, error_description: err.description };
      }
    },
  },
];
