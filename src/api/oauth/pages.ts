import { timingSafeEqual } from 'node:crypto';
import type { AuthorizationRequest, SignInThen } from '../../identity/oauth/browser-session.js';
import type { PendingSignIn } from '../../identity/external-idp/index.js';
import {
  clientRedirect,
  signedInSession,
  type AuthorizationStep,
  type ConsentChoices,
  type PendingAuthorization,
} from '../../operations/authorizations.js';
import { registeredClient } from '../../operations/oauth-clients.js';
import { signInProviders } from '../../operations/sign-in.js';
import { TokenError } from '../../identity/tokens.js';
import { consentPage, errorPage, loginPage, type SignInFor } from '../../presenters/sign-in-pages.js';
import type { AppContext } from '../context.js';
import { PageError, RedirectError } from './authorization-request.js';
import { readExternalSignIn, readSession, redirect, sendPage, writeExternalSignIn } from './browser.js';

const incomplete = 'The sign-in form is incomplete. Start again from your application.';

/**
 * What a sign-in form or link leads to: `next=consents`, or the pending authorization request it
 * carries (`target`, for the sign-in page; `then`, opened, for a sign-in that leaves the platform).
 */
export async function signInDestination(
  ctx: AppContext,
  fields: { request?: string; next?: string },
): Promise<{ target: SignInFor; then: SignInThen }> {
  if (fields.next === 'consents' && !fields.request) return { target: { next: 'consents' }, then: { next: 'consents' } };
  const { request, client, sealed } = await pendingRequest(ctx, fields.request);
  return { target: { request: sealed, clientName: client.client_name }, then: { request } };
}

/** What a sign-in form or link leads to: `next=consents`, or the pending authorization request it carries. */
export async function signInTarget(ctx: AppContext, fields: { request?: string; next?: string }): Promise<SignInFor> {
  return (await signInDestination(ctx, fields)).target;
}

/** The person whose session cookie this browser holds, if it is valid, not signed out, and its account still exists. */
export async function signedInPerson(ctx: AppContext): Promise<string | null> {
  return (await signedInSession(ctx.services, readSession(ctx)))?.person ?? null;
}

/** A page form's anti-forgery value, bound to this browser's session and to what the form acts on (`boundTo`). */
function formToken(ctx: AppContext, boundTo: string): string {
  return ctx.services.browserSessions.formToken(readSession(ctx) ?? '', boundTo);
}

/** Whether a form's anti-forgery value is the one formToken gives (compared in constant time). */
export function formTokenMatches(ctx: AppContext, given: string | undefined, boundTo: string): boolean {
  const expected = formToken(ctx, boundTo);
  return !!given && given.length === expected.length && timingSafeEqual(Buffer.from(given), Buffer.from(expected));
}

/**
 * A page form's anti-forgery value must be the one bound to this browser's session and to what the
 * form acts on (`boundTo`): a post from another site, or onto another request, is refused.
 */
export function checkFormToken(ctx: AppContext, given: string | undefined, boundTo: string): void {
  if (!formTokenMatches(ctx, given, boundTo)) {
    throw new PageError('This form did not come from the page we showed you. Start again from your application.');
  }
}

/** Where a successful sign-in goes on to. */
export const afterSignIn = (target: SignInFor) =>
  'request' in target ? `/oauth/authorize?pending=${encodeURIComponent(target.request)}` : '/oauth/consents';

/** An authorization request sealed for the pages' forms and links (see pendingRequest). */
export async function sealRequest(ctx: AppContext, request: AuthorizationRequest): Promise<string> {
  return ctx.services.browserSessions.sealRequest(request);
}

/** The pending request a form carries (`sealed`), with its client as it is now. */
export async function pendingRequest(ctx: AppContext, sealed: string | undefined): Promise<PendingAuthorization & { sealed: string }> {
  if (!sealed) throw new PageError(incomplete);
  let request: AuthorizationRequest;
  try {
    request = await ctx.services.browserSessions.openRequest(sealed);
  } catch (err) {
    if (err instanceof TokenError) throw new PageError('This sign-in has expired or was altered. Start again from your application.');
    throw err;
  }
  const client = await registeredClient(ctx.services, request.client_id).catch(() => null);
  if (!client) throw new PageError('The application is no longer registered.');
  return { request, client, sealed };
}

/**
 * The external sign-in this browser holds, opened, and cleared from the browser (it is used once);
 * null when it expired, was altered or was never started here.
 */
export async function takeExternalSignIn(ctx: AppContext, provider: string): Promise<{ pending: PendingSignIn; then: SignInThen } | null> {
  const held = await ctx.services.browserSessions.openExternalSignIn(readExternalSignIn(ctx));
  writeExternalSignIn(ctx, provider, null);
  return held;
}

export async function showLogin(ctx: AppContext, target: SignInFor, status = 200, error?: string, email?: string) {
  sendPage(
    ctx,
    status,
    loginPage({
      target,
      providers: signInProviders(ctx.services),
      ...(error ? { error } : {}),
      ...(email ? { email } : {}),
    }),
  );
}

export function showConsent(
  ctx: AppContext,
  consent: { person: string; choices: ConsentChoices; error?: string },
  pending: PendingAuthorization,
  sealed: string,
) {
  const { request, client } = pending;
  const { person, choices, error } = consent;
  const html = consentPage({
    client: {
      name: client.client_name,
      id: client.client_id,
      verified: client.source === 'metadata_document',
      redirectHost: new URL(request.redirect_uri).host || request.redirect_uri,
    },
    person: choices.user?.email ?? person,
    scopes: request.scope,
    workspaces: choices.workspaces.map((w) => ({ id: w._id, name: w.name })),
    request: sealed,
    formToken: formToken(ctx, sealed),
    ...(error ? { error } : {}),
  });
  sendPage(ctx, error ? 400 : 200, html, request.redirect_uri);
}

/**
 * Does what an operation decided for an authorization request (`sealed` in the pages' forms): the
 * sign-in page, the consent page, the redirect, or a page saying the sign-in cannot continue.
 */
export async function showStep(ctx: AppContext, step: AuthorizationStep, pending: PendingAuthorization, sealed: string): Promise<void> {
  switch (step.kind) {
    case 'sign-in':
      return showLogin(ctx, { request: sealed, clientName: pending.client.client_name }, step.status, step.error);
    case 'consent':
      return showConsent(ctx, step, pending, sealed);
    case 'redirect':
      return redirect(ctx, step.location);
    case 'refused':
      throw new PageError(step.message);
  }
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
