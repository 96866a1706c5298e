import type { AuthorizationRequest } from '../../identity/oauth/browser-session.js';
import type { OAuthClient } from '../../identity/oauth/clients.js';
import { userPrincipal } from '../../identity/principal.js';
import { TokenError } from '../../identity/tokens.js';
import { consentPage, errorPage, loginPage } from '../../presenters/sign-in-pages.js';
import type { AppContext } from '../context.js';
import { clientRedirect, PageError, RedirectError } from './authorization-request.js';
import { readSession, sendPage } from './browser.js';

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

export async function showLogin(ctx: AppContext, client: OAuthClient, sealed: string, status = 200, error?: string, email?: string) {
  sendPage(
    ctx,
    status,
    loginPage({
      clientName: client.client_name,
      request: sealed,
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
  const [user, workspaces] = await Promise.all([
    ctx.services.users.findById(person),
    ctx.services.containers.list('workspace', userPrincipal(person, false), 100),
  ]);
  const html = consentPage({
    client: {
      name: client.client_name,
      id: client.client_id,
      verified: client.source === 'metadata_document',
      redirectHost: new URL(request.redirect_uri).host || request.redirect_uri,
    },
    person: user?.email ?? person,
    scopes: request.scope,
    workspaces: workspaces.items.map((w) => ({ id: w._id, name: w.name })),
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
