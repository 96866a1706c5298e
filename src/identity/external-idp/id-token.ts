import { errors, jwtVerify, type JWTPayload } from 'jose';
import type { IdentityProviderConfig } from './config.js';
import type { ExternalSignInError } from './errors.js';
import { invalidResponse, type KeySet } from './metadata.js';

/** Asymmetric algorithms only: an HS256 token keyed with the client secret, or `none`, is never accepted. */
export const idTokenAlgorithms = ['RS256', 'ES256'];

/**
 * Verifies an id_token as OpenID Connect Core §3.1.3.7 asks of a confidential or public client: the
 * signature with the IdP's keys (fetched again once when the token names an unknown key), `iss`
 * exactly the issuer, `aud` containing the client (and `azp` the client when given or when there are
 * several audiences), `exp` in the future, `iat` recent, and `nonce` the one sent.
 */
export async function verifyIdToken(
  provider: IdentityProviderConfig,
  idToken: string,
  nonce: string,
  keySet: (stale: boolean) => Promise<KeySet>,
): Promise<JWTPayload & { sub: string }> {
  const options = {
    issuer: provider.issuer,
    audience: provider.client_id,
    algorithms: idTokenAlgorithms,
    requiredClaims: ['sub', 'exp', 'iat'],
    clockTolerance: 60,
    maxTokenAge: 10 * 60,
  };
  let payload: JWTPayload;
  try {
    try {
      ({ payload } = await jwtVerify(idToken, await keySet(false), options));
    } catch (err) {
      if (!(err instanceof errors.JWKSNoMatchingKey)) throw err;
      ({ payload } = await jwtVerify(idToken, await keySet(true), options));
    }
  } catch (err) {
    if (err instanceof errors.JOSEError) throw invalidResponse(provider, `id_token: ${err.code}: ${err.message}`);
    throw err as ExternalSignInError; // the keys could not be fetched: already the sign-in's own error
  }
  if (payload.nonce !== nonce) throw invalidResponse(provider, 'id_token: the nonce is not the one sent');
  const audiences = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
  if ((audiences.length > 1 || payload.azp !== undefined) && payload.azp !== provider.client_id) {
    throw invalidResponse(provider, `id_token: azp ${String(payload.azp)} is not the client`);
  }
  if (typeof payload.sub !== 'string' || payload.sub.length === 0 || payload.sub.length > 255) {
    throw invalidResponse(provider, 'id_token: sub is not a string of 1 to 255 characters');
  }
  return payload as JWTPayload & { sub: string };
}
