import type { AuthorizationRequest } from '../../identity/oauth/browser-session.js';
import { OAuthError } from '../../identity/oauth/errors.js';
import { unfiltered, type ResourceFilters } from '../../identity/principal.js';
import { allowClient, chosenFilters } from '../../operations/authorizations.js';
import { Problem } from '../../kernel/errors/problem.js';
import { errorPage } from '../../presenters/sign-in-pages.js';
import type { AppContext } from '../context.js';
import { limitCredentialExchange } from '../middleware/rate-limit.js';
import { clientRedirect, PageError, parseAuthorizationRequest } from '../oauth/authorization-request.js';
import { readSession, redirect, sameOriginForm, sendPage, writeSession } from '../oauth/browser.js';
import {
  afterSignIn,
  asPage,
  checkFormToken,
  pendingRequest,
  showConsent,
  showLogin,
  signedInPerson,
  signedInSession,
  signInTarget,
} from '../oauth/pages.js';
import { signInAttempt } from '../password-sign-in.js';
import { passwordSignIn } from '../../operations/sign-in.js';
import type { RouteDef } from '../route.js';
import { registeredClientSchema } from '../../presenters/discovery.js';

type Form = Record<string, string | undefined>;

/**
 * The person allowed: a one-time code, and the redirect that takes it to the client. The console's
 * grant names the browser session it came through (`sessionId`), so signing out ends it; a
 * third-party client's grant lives by the person's consent instead (revoked at /oauth/consents).
 */
async function allow(
  ctx: AppContext,
  person: string,
  request: AuthorizationRequest,
  filters: ResourceFilters,
  consent: { grantId: string } | { sessionId: string },
) {
  const code = await ctx.services.authorizationServer.issueCode({
    client_id: request.client_id,
    person_id: person,
    scope: request.scope,
    resource: request.resource,
    filters,
    consent_grant_id: 'grantId' in consent ? consent.grantId : '',
    ...('sessionId' in consent ? { session_id: consent.sessionId } : {}),
    redirect_uri: request.redirect_uri,
    code_challenge: request.code_challenge,
  });
  return clientRedirect(request, { code });
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
        const sealed = sealedParam ?? (await ctx.services.browserSessions.sealRequest(pending.request));
        const session = await signedInSession(ctx);
        if (!session) return showLogin(ctx, { request: sealed, clientName: pending.client.client_name });
        // The platform's own console asks no consent: it is the person, signed in, using their account.
        if (pending.client.source === 'first_party')
          return redirect(ctx, await allow(ctx, session.person, pending.request, unfiltered, { sessionId: session.id }));
        await showConsent(ctx, session.person, pending, sealed);
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
        let person: string | null;
        try {
          person = await passwordSignIn(ctx.services, signInAttempt(ctx, email), form.password.slice(0, 1024));
        } catch (err) {
          if (err instanceof Problem) return showLogin(ctx, target, err.status, err.body().detail ?? err.message, email);
          throw err;
        }
        if (!person) return showLogin(ctx, target, 401, 'The e-mail or password is not right.', email);
        writeSession(ctx, await ctx.services.browserSessions.startSession(person, 'password'));
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
        const { request, client } = pending;
        if (client.source === 'first_party') throw new PageError('The console asks no consent.');
        const person = await signedInPerson(ctx);
        if (!person)
          return showLogin(ctx, { request: form.request!, clientName: client.client_name }, 401, 'Your session has ended. Sign in again.');
        checkFormToken(ctx, form.form_token, form.request!);
        if (form.decision === 'deny') {
          return redirect(ctx, clientRedirect(request, { error: 'access_denied', error_description: 'The person denied access.' }));
        }
        if (form.decision !== 'allow') throw new PageError('Choose Allow or Deny.');
        const granted = request.scope.filter((s) => form[`scope:${s}`] === 'on');
        if (granted.length === 0) return showConsent(ctx, person, pending, form.request!, 'Tick at least one permission, or deny.');
        const filters = await chosenFilters(ctx.services, person, tickedWorkspaces(form));
        if (filters.workspaces !== '*' && filters.workspaces.length === 0) {
          return showConsent(ctx, person, pending, form.request!, 'Tick at least one workspace, or choose all of them.');
        }
        const consent = await allowClient(ctx.services, person, client, granted, filters);
        redirect(ctx, await allow(ctx, person, { ...request, scope: granted }, filters, consent));
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
          await ctx.services.browserSessions.endSession(readSession(ctx));
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
        ctx.body = await ctx.services.authorizationServer.register(ctx.state.body);
        ctx.status = 201;
      } catch (err) {
        if (!(err instanceof OAuthError)) throw err;
        ctx.status = 400;
        ctx.body = { error: err.code, error_description: err.description };
      }
    },
  },
];
