import { createLocalJWKSet, type JSONWebKeySet } from 'jose';
import { z } from 'zod';
import type { Outbound } from '../../net/outbound.js';
import type { IdentityProviderConfig } from './config.js';
import { ExternalSignInError } from './errors.js';

/** The parts of an OpenID Provider's metadata (OpenID Connect Discovery 1.0 §3) the sign-in uses. */
const providerMetadata = z.object({
  issuer: z.string(),
  authorization_endpoint: z.url({ protocol: /^https?$/ }),
  token_endpoint: z.url({ protocol: /^https?$/ }),
  jwks_uri: z.url({ protocol: /^https?$/ }),
  userinfo_endpoint: z.url({ protocol: /^https?$/ }).optional(),
  /** RFC 9207: the IdP puts `iss` on its authorization responses. */
  authorization_response_iss_parameter_supported: z.boolean().optional(),
});
export type ProviderMetadata = z.infer<typeof providerMetadata>;

export type KeySet = ReturnType<typeof createLocalJWKSet>;

/** Network trouble (the guard's refusal, a timeout, a reset) as the sign-in's own error. */
export function unreachable(provider: IdentityProviderConfig, what: string, err: unknown): ExternalSignInError {
  return new ExternalSignInError(
    'unreachable',
    `${provider.label} could not be reached. Please try again later.`,
    `${what}: ${(err as Error).message ?? String(err)}`,
    { cause: err },
  );
}

export function invalidResponse(provider: IdentityProviderConfig, detail: string): ExternalSignInError {
  return new ExternalSignInError(
    'invalid_response',
    `${provider.label} answered in a way that could not be verified. Please try again.`,
    detail,
  );
}

async function getJson(outbound: Outbound, provider: IdentityProviderConfig, what: string, url: string): Promise<unknown> {
  let answer: { status: number; body: unknown };
  try {
    answer = await outbound.fetchJson(url);
  } catch (err) {
    if (err instanceof Error && /not JSON/.test(err.message)) throw invalidResponse(provider, `${what}: ${err.message}`);
    throw unreachable(provider, what, err);
  }
  if (answer.status >= 500 || answer.status === 429) throw unreachable(provider, what, new Error(`${url} answered ${answer.status}`));
  if (answer.status !== 200) throw invalidResponse(provider, `${what}: ${url} answered ${answer.status}`);
  return answer.body;
}

interface Cached<T> {
  value: Promise<T>;
  at: number;
}

/**
 * Each provider's discovery document and signing keys, fetched through the guarded outbound client and
 * kept for `ttlMs`. A failed fetch is not kept. The keys are fetched again, at most once per
 * `refetchAfterMs`, when a token names a key the cached set lacks (the IdP rotated its keys).
 */
export class ProviderMetadataCache {
  private readonly documents = new Map<string, Cached<ProviderMetadata>>();
  private readonly keys = new Map<string, Cached<KeySet>>();

  constructor(
    private readonly outbound: Outbound,
    private readonly ttlMs = 60 * 60_000,
    private readonly refetchAfterMs = 30_000,
    private readonly now = () => Date.now(),
  ) {}

  metadata(provider: IdentityProviderConfig): Promise<ProviderMetadata> {
    return this.cached(this.documents, provider.name, () => this.discover(provider));
  }

  /** The provider's key set; `stale: true` asks for a fresh one unless the cached one is younger than refetchAfterMs. */
  async keySet(provider: IdentityProviderConfig, stale = false): Promise<KeySet> {
    const held = this.keys.get(provider.name);
    if (stale && held && this.now() - held.at >= this.refetchAfterMs) this.keys.delete(provider.name);
    return this.cached(this.keys, provider.name, async () => {
      const { jwks_uri } = await this.metadata(provider);
      const body = await getJson(this.outbound, provider, 'JWKS', jwks_uri);
      const keys = (body as { keys?: unknown } | null)?.keys;
      if (!Array.isArray(keys)) throw invalidResponse(provider, `JWKS: ${jwks_uri} has no keys array`);
      try {
        return createLocalJWKSet(body as JSONWebKeySet);
      } catch (err) {
        throw invalidResponse(provider, `JWKS: ${(err as Error).message}`);
      }
    });
  }

  private cached<T>(map: Map<string, Cached<T>>, key: string, load: () => Promise<T>): Promise<T> {
    const held = map.get(key);
    if (held && this.now() - held.at < this.ttlMs) return held.value;
    const entry: Cached<T> = { value: load(), at: this.now() };
    map.set(key, entry);
    entry.value.catch(() => {
      if (map.get(key) === entry) map.delete(key);
    });
    return entry.value;
  }

  /** Discovery §4: the document at issuer + /.well-known/openid-configuration, whose `issuer` must be exactly the configured one. */
  private async discover(provider: IdentityProviderConfig): Promise<ProviderMetadata> {
    const url = `${provider.issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
    const body = await getJson(this.outbound, provider, 'discovery', url);
    const parsed = providerMetadata.safeParse(body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw invalidResponse(provider, `discovery: ${url}: ${issue.path.join('.')}: ${issue.message}`);
    }
    if (parsed.data.issuer !== provider.issuer) {
      throw invalidResponse(provider, `discovery: ${url} names issuer ${parsed.data.issuer}, not the configured ${provider.issuer}`);
    }
    return parsed.data;
  }
}
