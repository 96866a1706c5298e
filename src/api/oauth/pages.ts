import { timingSafeEqual } from 'node:crypto';
import type { AuthorizationRequest, BrowserSession } from '../../identity/oauth/browser-session.js';
import type { OAuthClient } from '../../identity/oauth/clients.js';
import { consentChoices, signedInSession as signedInBrowser } from '../../operations/authorizations.js';
import { TokenError } from '../../identity/tokens.js';
import { consentPage, errorPage, loginPage, type SignInFor } from '../../presenters/sign-in-pages.js';
import type { AppContext } from '../context.js';
import { clientRedirect, PageError, RedirectError } from './authorization-request.js';
import { readSession, sendPage } from './browser.js';

/** What a sign-in form or link leads to: `next=consents`, or the pending authorization request it carries. */
export async function signInTarget(ctx: AppContext, fields: { request?: string; next?: string }): Promise<SignInFor> {
  if (fields.next === 'consents' && !fields.request) return { next: 'consents' };
  const { client } = await pendingRequest(ctx, fields.request);
  return { request: fields.request!, clientName: client.client_name };
}

/** The session this browser's cookie holds, if it is valid, not signed out, and its account still exists. */
export async function signedInSession(ctx: AppContext): Promise<BrowserSession | null> {
  return signedInBrowser(ctx.services, readSession(ctx));
}

/** The person whose session cookie this browser holds (see signedInSession). */
export async function signedInPerson(ctx: AppContext): Promise<string | null> {
  return (await signedInSession(ctx))?.person ?? null;
}

/**
 * A page form's anti-forgery value must be the one bound to this browser's session and to what the
 * form acts on (`boundTo`): a post from another site, or onto another request, is refused.
 */
export function checkFormToken(ctx: AppContext, given: string | undefined, boundTo: string): void {
  const expected = ctx.services.browserSessions.formToken(readSession(ctx) ?? '', boundTo);
  if (!given || given.length !== expected.length || !timingSafeEqual(Buffer.from(given), Buffer.from(expected))) {
    throw new PageError('This form did not come from the page we showed you. Start again from your application.');
  }
}

/** Where a successful sign-in goes on to. */
export const afterSignIn = (target: SignInFor) =>
  'request' in target ? `/oauth/authorize?pending=${encodeURIComponent(target.request)}` : '/oauth/consents';

/** The pending request a form carries, with its client as it is now. */
export async function pendingRequest(
  ctx: AppContext,
  sealed: string | undefined,
): Promise<{ request: AuthorizationRequest; client: OAuthClient }> {
  if (!sealed) throw new PageError('The sign-in form is incomplete. Start again from your application.');
  let request: AuthorizationRequest;
  try {
    request = await ctx.services.browserSessions.openRequest(sealed);
  } catch (err) {
    if (err instanceof TokenError) throw new PageError('This sign-in has expired or was altered. Start again from your application.');
    throw err;
  }
  const client = await ctx.services.authorizationServer.client(request.client_id).catch(() => null);
  if (!client) throw new PageError('The application is no longer registered.');
  return { request, client };
}

export async function showLogin(ctx: AppContext, target: SignInFor, status = 200, error?: string, email?: string) {
  sendPage(
    ctx,
    status,
    loginPage({
      target,
      providers: ctx.services.externalSignIn.providers.list(),
      ...(error ? { error } : {}),
      ...(email ? { email } : {}),
    }),
  );
}

export async function showConsent(
  ctx: AppContext,
  person: string,
  pending: { request: AuthorizationRequest; client: OAuthClient },
  sealed: string,
  error?: string,
) {
  const { request, client } = pending;
  const { user, workspaces } = await consentChoices(ctx.services, person);
  const html = consentPage({
    client: {
      name: client.client_name,
      id: client.client_id,
      verified: client.source === 'metadata_document',
      redirectHost: new URL(request.redirect_uri).host || request.redirect_uri,
    },
    person: user?.email ?? person,
    scopes: request.scope,
    workspaces: workspaces.map((w) => ({ id: w._id, name: w.name })),
    request: sealed,
    formToken: ctx.services.browserSessions.formToken(readSession(ctx)!, sealed),
    ...(error ? { error } : {}),
  });
  sendPage(ctx, error ? 400 : 200, html, request.redirect_uri);
}

/**
 * Runs a page handler. A PageError is shown to the person. A RedirectError is shown too, with a link
 * that takes the error back to the client: anyone can register a redirect URI, so the platform never
 * sends a browser to one without a person's action (RFC 9700 §4.11.2, no open redirector).
 */
export async function asPage(ctx: AppContext, run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (err) {
    if (err instanceof PageError) return sendPage(ctx, 400, errorPage('This sign-in cannot continue', err.message));
    if (err instanceof RedirectError) {
      const back = clientRedirect(err.request, { error: err.error.code, error_description: err.error.description });
      return sendPage(ctx, 400, errorPage('This sign-in cannot continue', err.error.description, back), err.request.redirect_uri);
    }
    throw err;
  }
}
