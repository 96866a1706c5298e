import { decoyHash, verifyPassword } from '../identity/passwords.js';
import type { SignInAttempt } from '../identity/sign-in-throttle.js';
import { ExternalSignInError, type PendingSignIn } from '../identity/external-idp/index.js';
import type { SignInThen } from '../identity/oauth/browser-session.js';
import type { IssuedToken } from '../identity/tokens.js';
import { Problem, problems } from '../kernel/errors/problem.js';
import type { Services } from './services.js';

/**
 * Checks a person's e-mail and password, throttled per account (429 sign-in-throttled,
 * account-locked) before any password is checked. The same work is done for an unknown e-mail, so
 * response time does not reveal accounts. The person's id, or null.
 */
export async function passwordSignIn(services: Services, attempt: SignInAttempt, password: string): Promise<string | null> {
  const { ok, personId } = await services.signIns.check(attempt, async () => {
    const user = await services.users.findByEmail(attempt.email);
    const matches = await verifyPassword(password, user?.password_hash ?? (await decoyHash));
    return { ok: !!user && matches, personId: user?._id ?? null };
  });
  return ok ? personId : null;
}

/** POST /auth/login: a person's access token for their e-mail and password (401 invalid-credentials). */
export async function passwordToken(services: Services, attempt: SignInAttempt, password: string): Promise<IssuedToken> {
  const personId = await passwordSignIn(services, attempt, password);
  if (!personId) throw problems.invalidCredentials();
  return services.tokens.issue(personId, { kind: 'user' });
}

/**
 * The person an external OpenID Connect provider vouched for, on its redirect back (SPEC §5.10): the
 * provider's answer checked against the pending sign-in, then the account it links to, made on a
 * first sign-in when the allow-list admits the person. Throws ExternalSignInError otherwise.
 */
export async function externalSignIn(
  services: Services,
  pending: PendingSignIn,
  callbackQuery: Record<string, string | string[] | undefined>,
): Promise<string> {
  const identity = await services.externalSignIn.providers.completeSignIn(pending, callbackQuery);
  return (await services.externalSignIn.accounts.findOrCreatePerson(identity)).personId;
}

/** The identity providers a sign-in page offers (name and label). */
export function signInProviders(services: Services): { name: string; label: string }[] {
  return services.externalSignIn.providers.list();
}

/**
 * A browser's sign-in with a password (see passwordSignIn): the new session's cookie value, or the
 * status and message the sign-in page shows instead.
 */
export async function startPasswordSession(
  services: Services,
  attempt: SignInAttempt,
  password: string,
): Promise<{ session: string } | { status: number; error: string }> {
  let personId: string | null;
  try {
    personId = await passwordSignIn(services, attempt, password);
  } catch (err) {
    // Throttled or locked (429): the sign-in page says so.
    if (err instanceof Problem) return { status: err.status, error: err.body().detail ?? err.message };
    throw err;
  }
  if (!personId) return { status: 401, error: 'The e-mail or password is not right.' };
  return { session: await services.browserSessions.startSession(personId, 'password') };
}

/** Ends the browser session the cookie holds, on the server (for every replica); a cookie that is no session needs nothing. */
export async function signOut(services: Services, cookie: string | undefined): Promise<void> {
  await services.browserSessions.endSession(cookie);
}

/**
 * Starts a sign-in with an external provider: where to send the browser (the provider's authorization
 * endpoint, with PKCE, state and nonce), and what the browser keeps until it returns to `callback`
 * (sealed: the pending sign-in and where it goes on to). Throws ExternalSignInError.
 */
export async function startExternalSignIn(
  services: Services,
  provider: string,
  callback: string,
  then: SignInThen,
): Promise<{ authorizationUrl: string; held: string }> {
  const { authorizationUrl, pending } = await services.externalSignIn.providers.beginSignIn(provider, callback);
  return { authorizationUrl, held: await services.browserSessions.sealExternalSignIn(pending, then) };
}

/**
 * Finishes it on the provider's redirect back to `provider`'s callback: the person it vouched for (see
 * externalSignIn), signed in. The new session's cookie value; throws ExternalSignInError.
 */
export async function finishExternalSignIn(
  services: Services,
  provider: string,
  pending: PendingSignIn,
  callbackQuery: Record<string, string | string[] | undefined>,
): Promise<string> {
  if (pending.provider !== provider) {
    throw new ExternalSignInError('invalid_state', 'This sign-in link is not valid any more. Please start the sign-in again.');
  }
  const personId = await externalSignIn(services, pending, callbackQuery);
  return services.browserSessions.startSession(personId, `oidc:${provider}`);
}
