import { newGrantId } from '../identity/oauth/authorization-server.js';
import type { AuthorizationRequest, BrowserSession } from '../identity/oauth/browser-session.js';
import type { OAuthClient } from '../identity/oauth/clients.js';
import { unfiltered, userPrincipal, type ResourceFilters } from '../identity/principal.js';
import { problems } from '../kernel/errors/problem.js';
import type { ConsentDoc } from '../store/consents.js';
import type { ContainerDoc } from '../store/containers.js';
import type { UserDoc } from '../store/users.js';
import type { Services } from './services.js';

/**
 * What a person does in the browser, signed in by their session cookie rather than a bearer token:
 * allow an OAuth client (the consent page), see and revoke what they allowed, use an operator page.
 * The cookie is read and the page answered by the route (api/oauth/); the cookie's value or the
 * person's id comes here, and what the page does next goes back (an AuthorizationStep).
 */

/** The session a browser's cookie holds, if it is valid, not signed out, and its account still exists. */
export async function signedInSession(services: Services, cookie: string | undefined): Promise<BrowserSession | null> {
  const session = await services.browserSessions.session(cookie);
  return session && (await services.users.findById(session.person)) ? session : null;
}

/** A session's person who is an administrator (401 without a session, 403 for anyone else). */
export async function sessionAdministrator(services: Services, cookie: string | undefined): Promise<UserDoc> {
  const personId = await services.browserSessions.sessionPerson(cookie);
  if (!personId) throw problems.unauthorized('Sign in to the platform (the console) in this browser first.', null);
  const user = await services.users.findById(personId);
  if (!user?.is_admin) throw problems.forbidden('This operation needs an administrator.');
  return user;
}

export interface ConsentChoices {
  user: UserDoc | null;
  workspaces: ContainerDoc[];
}

/** What the consent page offers a person: their account, and the workspaces (at most 100) they may choose. */
export async function consentChoices(services: Services, person: string): Promise<ConsentChoices> {
  const [user, workspaces] = await Promise.all([
    services.users.findById(person),
    services.containers.list('workspace', userPrincipal(person, false), 100),
  ]);
  return { user, workspaces: workspaces.items };
}

/** The person's choice of workspaces: all of them (`all`), or those of `ticked` that they can see. */
export async function chosenFilters(services: Services, person: string, ticked: string[] | 'all'): Promise<ResourceFilters> {
  if (ticked === 'all') return unfiltered;
  const principal = userPrincipal(person, false);
  const visible = await Promise.all(ticked.map((id) => services.containers.get('workspace', principal, id).catch(() => null)));
  return { workspaces: visible.filter((w) => w !== null).map((w) => w!._id), collections: [] };
}

/** The person allows an OAuth client these scopes in these workspaces: the consent its grant lives by. */
export async function allowClient(
  services: Services,
  person: string,
  client: { client_id: string; client_name: string },
  scopes: string[],
  filters: ResourceFilters,
): Promise<{ grantId: string }> {
  const consent = await services.consents.grantOAuth(
    person,
    client.client_id,
    { client_name: client.client_name, scopes, filters },
    newGrantId(),
  );
  return { grantId: consent.oauth!.grant_id };
}

/** The redirect to the client, with RFC 9207's `iss` so the client knows which server answered. */
export function clientRedirect(request: Pick<AuthorizationRequest, 'redirect_uri' | 'state' | 'issuer'>, params: Record<string, string>) {
  const url = new URL(request.redirect_uri);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  if (request.state !== undefined) url.searchParams.set('state', request.state);
  url.searchParams.set('iss', request.issuer);
  return url.toString();
}

/** An authorization request as the pages carry it, with its client as it is now. */
export interface PendingAuthorization {
  request: AuthorizationRequest;
  client: OAuthClient;
}

/**
 * What the page does next: the sign-in page (with what went wrong, if anything), the consent page
 * (with what it offers the person, and what went wrong), a redirect, or a page saying the sign-in
 * cannot continue (`refused`).
 */
export type AuthorizationStep =
  | { kind: 'sign-in'; status?: number; error?: string }
  | { kind: 'consent'; person: string; choices: ConsentChoices; error?: string }
  | { kind: 'redirect'; location: string }
  | { kind: 'refused'; message: string };

/**
 * The person allowed: a one-time code, and the redirect that takes it to the client. The console's
 * grant names the browser session it came through (`sessionId`), so signing out ends it; a
 * third-party client's grant lives by the person's consent instead (revoked at /oauth/consents).
 */
async function issueCode(
  services: Services,
  person: string,
  request: AuthorizationRequest,
  filters: ResourceFilters,
  consent: { grantId: string } | { sessionId: string },
): Promise<AuthorizationStep> {
  const code = await services.authorizationServer.issueCode({
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
  return { kind: 'redirect', location: clientRedirect(request, { code }) };
}

/**
 * The authorization endpoint, for the browser whose session cookie is `cookie`: sign in first; the
 * platform's own console asks no consent (it is the person, signed in, using their account); any
 * other client asks the person's consent.
 */
export async function authorize(services: Services, cookie: string | undefined, pending: PendingAuthorization): Promise<AuthorizationStep> {
  const session = await signedInSession(services, cookie);
  if (!session) return { kind: 'sign-in' };
  if (pending.client.source === 'first_party') {
    return issueCode(services, session.person, pending.request, unfiltered, { sessionId: session.id });
  }
  return { kind: 'consent', person: session.person, choices: await consentChoices(services, session.person) };
}

/** What the consent form said: the decision, the scopes and workspaces it ticked, and whether it came from our page. */
export interface ConsentForm {
  /** The form's anti-forgery value matched this browser's session and the request. */
  fromOurPage: boolean;
  decision: string | undefined;
  scopes: string[];
  workspaces: string[] | 'all';
}

/**
 * The person's decision on the consent page: a denial goes back to the client; an allowance needs at
 * least one of the asked scopes and one workspace the person can see (or all of them), records the
 * consent and issues a code for the ticked scopes.
 */
export async function decideConsent(
  services: Services,
  cookie: string | undefined,
  pending: PendingAuthorization,
  form: ConsentForm,
): Promise<AuthorizationStep> {
  const { request, client } = pending;
  if (client.source === 'first_party') return { kind: 'refused', message: 'The console asks no consent.' };
  const person = (await signedInSession(services, cookie))?.person;
  if (!person) return { kind: 'sign-in', status: 401, error: 'Your session has ended. Sign in again.' };
  if (!form.fromOurPage) {
    return { kind: 'refused', message: 'This form did not come from the page we showed you. Start again from your application.' };
  }
  if (form.decision === 'deny') {
    return {
      kind: 'redirect',
      location: clientRedirect(request, { error: 'access_denied', error_description: 'The person denied access.' }),
    };
  }
  if (form.decision !== 'allow') return { kind: 'refused', message: 'Choose Allow or Deny.' };
  const again = async (error: string): Promise<AuthorizationStep> => ({
    kind: 'consent',
    person,
    choices: await consentChoices(services, person),
    error,
  });
  const granted = request.scope.filter((s) => form.scopes.includes(s));
  if (granted.length === 0) return again('Tick at least one permission, or deny.');
  const filters = await chosenFilters(services, person, form.workspaces);
  if (filters.workspaces !== '*' && filters.workspaces.length === 0) {
    return again('Tick at least one workspace, or choose all of them.');
  }
  const consent = await allowClient(services, person, client, granted, filters);
  return issueCode(services, person, { ...request, scope: granted }, filters, consent);
}

/** What a person has allowed (OAuth clients, and credentials acting for them), with their account. */
export async function personAuthorizations(services: Services, person: string): Promise<{ user: UserDoc | null; consents: ConsentDoc[] }> {
  const [user, consents] = await Promise.all([services.users.findById(person), services.consents.list(person)]);
  return { user, consents };
}

/** Revokes one of them (nothing happens for one that is not there). */
export async function revokeAuthorization(services: Services, person: string, kind: string, credentialId: string): Promise<void> {
  await services.consents.revoke(person, kind, credentialId);
}
