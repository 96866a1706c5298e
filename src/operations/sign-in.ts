import { decoyHash, verifyPassword } from '../identity/passwords.js';
import type { SignInAttempt } from '../identity/sign-in-throttle.js';
import type { PendingSignIn } from '../identity/external-idp/index.js';
import type { IssuedToken } from '../identity/tokens.js';
import { problems } from '../kernel/errors/problem.js';
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
