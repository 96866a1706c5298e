import { newGrantId } from '../identity/oauth/authorization-server.js';
import type { BrowserSession } from '../identity/oauth/browser-session.js';
import { unfiltered, userPrincipal, type ResourceFilters } from '../identity/principal.js';
import { problems } from '../kernel/errors/problem.js';
import type { ConsentDoc } from '../store/consents.js';
import type { ContainerDoc } from '../store/containers.js';
import type { UserDoc } from '../store/users.js';
import type { Services } from './services.js';

/**
 * What a person does in the browser, signed in by their session cookie rather than a bearer token:
 * allow an OAuth client (the consent page), see and revoke what they allowed, use an operator page.
 * The cookie is read and the page answered by the route (api/oauth/); the person's id comes here.
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

/** What the consent page offers a person: their account, and the workspaces (at most 100) they may choose. */
export async function consentChoices(services: Services, person: string): Promise<{ user: UserDoc | null; workspaces: ContainerDoc[] }> {
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

/** What a person has allowed (OAuth clients, and credentials acting for them), with their account. */
export async function personAuthorizations(services: Services, person: string): Promise<{ user: UserDoc | null; consents: ConsentDoc[] }> {
  const [user, consents] = await Promise.all([services.users.findById(person), services.consents.list(person)]);
  return { user, consents };
}

/** Revokes one of them (nothing happens for one that is not there). */
export async function revokeAuthorization(services: Services, person: string, kind: string, credentialId: string): Promise<void> {
  await services.consents.revoke(person, kind, credentialId);
}
