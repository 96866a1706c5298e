// Verifies the delegation token (SPEC §5.7, RFC 8693) that the platform puts in a tools/call request's
// `params._meta["platform/delegation"]` when its console proxies a hosted viewer's call to your server.
// The token says which person the call is for (`sub`), through which host session (`act`), with which
// scopes (`scope`) in which workspace (`workspace_id`); its audience is your server credential's
// client_id. Dependency-free (Node's crypto and fetch only): copy it freely, as platform-client.ts.
//
//   const claims = await verifyDelegation(request.params._meta?.['platform/delegation'], {
//     platformUrl: 'https://platform.example', clientId: 'acme-crm.k3j9x2ab1',
//   });

import { createPublicKey, verify, type JsonWebKey, type KeyObject } from 'node:crypto';

/** Where the platform puts the token in a `tools/call` request's `params._meta`. */
export const delegationMetaKey = 'platform/delegation';
/** The token's JWT `typ`: an access token (`JWT`) is never accepted in its place, nor this in an access token's. */
export const delegationTokenType = 'delegation+jwt';

export interface DelegationClaims {
  iss: string;
  /** The person the call is for. */
  sub: string;
  /** Your server credential's client_id. */
  aud: string;
  iat: number;
  exp: number;
  jti: string;
  kind: 'delegation';
  /** Space-separated scopes: no wider than the person's, the viewer's and your credential's. */
  scope: string;
  /** The workspace the call is made in. */
  workspace_id: string;
  /** The actor: the platform's console (`sub`, its OAuth client id) and the person's session there (`sid`). */
  act: { sub: string; sid?: string };
}

export class DelegationError extends Error {}

export interface VerifyDelegationOptions {
  /** Your server credential's client_id: the token's required audience. */
  clientId: string;
  /** The platform's public URL: the issuer, and the JWKS at `<platformUrl>/.well-known/jwks.json`. */
  platformUrl?: string;
  /** The JWKS, when not at the platform's well-known path. */
  jwksUrl?: string;
  /** The required `iss`; the platform URL by default. */
  issuer?: string;
  /** Seconds of clock skew allowed on `exp` and `iat` (default 30). */
  clockToleranceSeconds?: number;
  fetch?: typeof fetch;
  /** Milliseconds since the epoch; injectable for tests. */
  now?: () => number;
}

/** A JWKS, fetched on first use and again (at most every 10 s) when a token names a key it lacks: the platform rotates its keys. */
class KeySet {
  private keys = new Map<string, KeyObject>();
  private fetchedAt = -Infinity;

  constructor(
    private readonly url: string,
    private readonly fetcher: typeof fetch,
  ) {}

  private fetching: Promise<void> | null = null;

  async key(kid: string, now: number): Promise<KeyObject | undefined> {
    if (!this.keys.has(kid) && now - this.fetchedAt > 10_000) {
      this.fetchedAt = now;
      this.fetching ??= this.fetch().finally(() => (this.fetching = null));
    }
    // A call during a fetch waits for it, rather than finding the key missing.
    if (this.fetching) await this.fetching;
    return this.keys.get(kid);
  }

  /** At most 5 s and 1 MiB; a key that is not a usable RSA signing key is left out, not fatal. */
  private async fetch(): Promise<void> {
    let body: { keys?: (JsonWebKey & { kid?: string; use?: string })[] };
    try {
      const res = await this.fetcher(this.url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(5000) });
      if (!res.ok) throw new DelegationError(`the JWKS at ${this.url} answered HTTP ${res.status}`);
      const text = await res.text();
      if (text.length > 1 << 20) throw new DelegationError(`the JWKS at ${this.url} is larger than 1 MiB`);
      body = JSON.parse(text);
    } catch (err) {
      throw err instanceof DelegationError
        ? err
        : new DelegationError(`the JWKS at ${this.url} could not be read: ${(err as Error).message}`);
    }
    const keys = new Map<string, KeyObject>();
    for (const k of Array.isArray(body?.keys) ? body.keys : []) {
      if (k.kty !== 'RSA' || typeof k.kid !== 'string' || (k.use !== undefined && k.use !== 'sig')) continue;
      try {
        keys.set(k.kid, createPublicKey({ key: k, format: 'jwk' }));
      } catch {
        // not a usable key: the others still are
      }
    }
    this.keys = keys;
  }
}

const keySets = new Map<string, KeySet>();

function part(segment: string | undefined, name: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(Buffer.from(segment ?? '', 'base64url').toString('utf8'));
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // fall through
  }
  throw new DelegationError(`the token's ${name} is not a JSON object`);
}

/**
 * Checks a delegation token and returns its claims, or throws DelegationError: RS256 signed by a key
 * of the platform's JWKS, `typ` delegation+jwt, issued by the platform, for your client_id, unexpired.
 */
export async function verifyDelegation(token: unknown, options: VerifyDelegationOptions): Promise<DelegationClaims> {
  const base = options.platformUrl?.replace(/\/$/, '');
  const jwksUrl = options.jwksUrl ?? (base ? `${base}/.well-known/jwks.json` : undefined);
  const issuer = options.issuer ?? base;
  if (!jwksUrl || !issuer) throw new DelegationError('pass platformUrl, or jwksUrl and issuer');
  if (typeof token !== 'string') throw new DelegationError('no delegation token');
  const segments = token.split('.');
  if (segments.length !== 3) throw new DelegationError('the token is not a JWS compact serialization');
  const [h, p, s] = segments as [string, string, string];
  const header = part(h, 'header');
  if (header.alg !== 'RS256') throw new DelegationError('the token is not RS256');
  if (header.typ !== delegationTokenType) throw new DelegationError(`the token's typ is not ${delegationTokenType}`);
  if (typeof header.kid !== 'string') throw new DelegationError('the token names no key');

  const now = options.now?.() ?? Date.now();
  let keys = keySets.get(jwksUrl);
  if (!keys) keySets.set(jwksUrl, (keys = new KeySet(jwksUrl, options.fetch ?? fetch)));
  const key = await keys.key(header.kid, now);
  if (!key) throw new DelegationError('the token was signed by a key the platform does not publish');
  if (!verify('RSA-SHA256', Buffer.from(`${h}.${p}`), key, Buffer.from(s, 'base64url')))
    throw new DelegationError('the token signature is invalid');

  const claims = part(p, 'payload');
  const tolerance = options.clockToleranceSeconds ?? 30;
  const seconds = now / 1000;
  const aud = claims.aud;
  if (claims.iss !== issuer) throw new DelegationError('the token was issued by someone else');
  if (aud !== options.clientId && !(Array.isArray(aud) && aud.includes(options.clientId)))
    throw new DelegationError('the token is for another audience');
  if (claims.kind !== 'delegation') throw new DelegationError('the token is not a delegation token');
  if (typeof claims.exp !== 'number' || seconds > claims.exp + tolerance) throw new DelegationError('the token has expired');
  if (typeof claims.iat !== 'number' || claims.iat > seconds + tolerance) throw new DelegationError('the token was issued in the future');
  const act = claims.act as { sub?: unknown } | undefined;
  if (
    typeof claims.sub !== 'string' ||
    typeof claims.scope !== 'string' ||
    typeof claims.workspace_id !== 'string' ||
    typeof act?.sub !== 'string'
  )
    throw new DelegationError('the token lacks sub, scope, workspace_id or act.sub');
  return claims as unknown as DelegationClaims;
}
