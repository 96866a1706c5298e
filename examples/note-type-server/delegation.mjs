// Checks the delegation token (RFC 8693, SPEC §5.7) that the platform sends with a call it forwards
// for a person from a viewer: a JWT signed with the platform's keys, whose audience is this server's
// client id. Configure with PLATFORM_URL (where /.well-known/jwks.json is served), PLATFORM_ISSUER
// (the tokens' `iss`, PLATFORM_URL by default) and NOTE_SERVER_CLIENT_ID (this server's credential).
/** Where the platform puts the token in a tools/call request's `params._meta`. */
export const DELEGATION_META_KEY = 'platform/delegation';

const platform = process.env.PLATFORM_URL;
const clientId = process.env.NOTE_SERVER_CLIENT_ID;
let keys = null;

/** `{verified, person?, actor?, reason?}`: who the platform says the call is for, or why nobody. */
export async function verifyDelegation(meta) {
  const token = meta?.[DELEGATION_META_KEY];
  if (typeof token !== 'string') return { verified: false, reason: 'no delegation token came with the call' };
  if (!platform || !clientId) return { verified: false, reason: 'PLATFORM_URL and NOTE_SERVER_CLIENT_ID are not configured' };
  try {
    const { createRemoteJWKSet, jwtVerify } = await import('jose');
    keys ??= createRemoteJWKSet(new URL('/.well-known/jwks.json', platform), { timeoutDuration: 5000 });
    const { payload } = await jwtVerify(token, keys, {
      issuer: process.env.PLATFORM_ISSUER ?? platform,
      audience: clientId,
      algorithms: ['RS256'],
      clockTolerance: 5,
    });
    return { verified: true, person: payload.sub, actor: payload.act?.sub };
  } catch (err) {
    return { verified: false, reason: `the delegation token was refused: ${err.code ?? err.message}` };
  }
}
