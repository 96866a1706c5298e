import { errors, jwtVerify, SignJWT, decodeProtectedHeader, type JWTPayload } from 'jose';
import { randomUUID } from 'node:crypto';
import { delegationTokenType } from './delegation.js';
import type { SigningKeys } from './signing-keys.js';

export interface IssuedToken {
  access_token: string;
  token_type: 'bearer';
  expires_in: number;
}

export class TokenError extends Error {}

/**
 * Issues and verifies the platform's RS256 access tokens. Nothing but RS256 is ever accepted. Every
 * token names its audience (`aud`): the platform's own API tokens carry `audience` (PLATFORM_API_URI),
 * and verification refuses a token meant for anyone else, or for no one, such as a delegation token
 * whose audience is a server's client id (SPEC §5.7).
 */
/** How many verified tokens are kept (see TokenService.verify). */
const verifiedLimit = 10_000;

export class TokenService {
  /** Tokens whose signature and claims were checked, by audience and token: the payload. */
  private readonly verified = new Map<string, JWTPayload & { sub: string }>();

  constructor(
    private readonly keys: SigningKeys,
    private readonly issuer: string,
    private readonly ttlSeconds: number,
    readonly audience: string = issuer,
  ) {}

  async issue(
    subject: string,
    claims: Record<string, unknown> = {},
    ttlSeconds = this.ttlSeconds,
    audience = this.audience,
  ): Promise<IssuedToken> {
    const { kid, privateKey } = await this.keys.signingKey();
    const token = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' })
      .setSubject(subject)
      .setIssuer(this.issuer)
      .setAudience(audience)
      .setIssuedAt()
      .setJti(randomUUID())
      .setExpirationTime(`${ttlSeconds}s`)
      .sign(privateKey);
    return { access_token: token, token_type: 'bearer', expires_in: ttlSeconds };
  }

  /** Verifies signature, algorithm, issuer, audience and expiry; throws TokenError with a client-safe reason. */
  async verify(token: string, audience: string | string[] = this.audience): Promise<JWTPayload & { sub: string }> {
    let kid: string | undefined;
    try {
      const header = decodeProtectedHeader(token);
      if (header.alg !== 'RS256') throw new TokenError('token algorithm is not RS256');
      if (header.typ === delegationTokenType) throw new TokenError('a delegation token is not an access token');
      kid = header.kid;
    } catch (err) {
      if (err instanceof TokenError) throw err;
      throw new TokenError('token is malformed');
    }
    if (!kid) throw new TokenError('token has no kid');
    const key = await this.keys.verificationKey(kid);
    if (!key) throw new TokenError('token was signed by an unknown key');
    // A token verified before (a client sends the same one with every request) is not verified again,
    // only checked for expiry: the RSA signature check was a tenth of a read's CPU. Its key is still
    // checked above, so a key no longer published stops its tokens at once.
    const cacheKey = `${[audience].flat().join(' ')}\n${token}`;
    const known = this.verified.get(cacheKey);
    if (known) {
      if (known.exp! * 1000 > Date.now()) return known;
      this.verified.delete(cacheKey);
      throw new TokenError('token has expired');
    }
    try {
      const { payload } = await jwtVerify(token, key, {
        algorithms: ['RS256'],
        issuer: this.issuer,
        audience,
        requiredClaims: ['sub', 'exp', 'aud'],
      });
      if (payload.nbf === undefined) {
        if (this.verified.size >= verifiedLimit) this.verified.delete(this.verified.keys().next().value!);
        this.verified.set(cacheKey, Object.freeze(payload) as JWTPayload & { sub: string });
      }
      return payload as JWTPayload & { sub: string };
    } catch (err) {
      if (err instanceof errors.JWTExpired) throw new TokenError('token has expired');
      if (err instanceof errors.JWSSignatureVerificationFailed) throw new TokenError('token signature is invalid');
      if (err instanceof errors.JWTClaimValidationFailed) throw new TokenError(`token claim ${err.claim} is invalid`);
      throw new TokenError('token is invalid');
    }
  }
}
