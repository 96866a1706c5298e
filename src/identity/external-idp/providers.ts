import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Logger } from '../../kernel/logging/logger.js';
import type { Outbound } from '../../net/outbound.js';
import { isAllowed, type ExternalIdentity } from './allow-list.js';
import { exchangeCode, fetchUserInfo } from './code-exchange.js';
import type { IdentityProviderConfig } from './config.js';
import { ExternalSignInError } from './errors.js';
import { verifyIdToken } from './id-token.js';
import { invalidResponse, ProviderMetadataCache } from './metadata.js';

/**
 * What the platform keeps between sending a person to the IdP and their return, e.g. in a signed,
 * HttpOnly cookie or a server-side session: every field is needed to complete, none is shown.
 */
export interface PendingSignIn {
  provider: string;
  state: string;
  nonce: string;
  codeVerifier: string;
  redirectUri: string;
  /** Epoch milliseconds. */
  createdAt: number;
}

/** How long a person has at the IdP before the pending sign-in expires. */
export const pendingLifetimeMs = 10 * 60_000;

const random = () => randomBytes(32).toString('base64url');
const sameString = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

/** Error codes an IdP may put on the callback (RFC 6749 §4.1.2.1, OIDC Core §3.1.2.6), worded for the person. */
const idpRefusals: Record<string, string> = {
  access_denied: 'The sign-in was cancelled or refused at',
  login_required: 'You need to sign in at',
  consent_required: 'Consent is needed at',
  interaction_required: 'More steps are needed at',
  temporarily_unavailable: 'Sign-in is temporarily unavailable at',
};

/**
 * Human sign-in with external OpenID Connect providers: the authorization code flow with PKCE (S256),
 * state and nonce; the id_token verified with the IdP's keys; the provider's allow-list applied. All
 * HTTP goes through the caller's guarded Outbound (SSRF checks, deadlines, size limits).
 */
export class ExternalIdentityProviders {
  private readonly byName: Map<string, IdentityProviderConfig>;
  private readonly metadata: ProviderMetadataCache;

  constructor(
    providers: IdentityProviderConfig[],
    private readonly outbound: Outbound,
    private readonly logger?: Logger,
    options: { metadataTtlMs?: number; now?: () => number } = {},
  ) {
    this.byName = new Map(providers.map((p) => [p.name, p]));
    this.now = options.now ?? Date.now;
    this.metadata = new ProviderMetadataCache(outbound, options.metadataTtlMs, undefined, this.now);
  }

  private readonly now: () => number;

  list(): { name: string; label: string }[] {
    return [...this.byName.values()].map(({ name, label }) => ({ name, label }));
  }

  /** The IdP's authorization URL to send the person to, and what to keep until they return to `redirectUri`. */
  async beginSignIn(name: string, redirectUri: string): Promise<{ authorizationUrl: string; pending: PendingSignIn }> {
    const provider = this.byName.get(name);
    if (!provider) throw new ExternalSignInError('unknown_provider', 'There is no such sign-in provider.', `no provider named ${name}`);
    const metadata = await this.logged(provider, () => this.metadata.metadata(provider));
    const pending: PendingSignIn = {
      provider: name,
      state: random(),
      nonce: random(),
      codeVerifier: random(),
      redirectUri,
      createdAt: this.now(),
    };
    const url = new URL(metadata.authorization_endpoint);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('client_id', provider.client_id);
    url.searchParams.set('redirect_uri', redirectUri);
    url.searchParams.set('scope', provider.scopes);
    url.searchParams.set('state', pending.state);
    url.searchParams.set('nonce', pending.nonce);
    url.searchParams.set('code_challenge', createHash('sha256').update(pending.codeVerifier).digest('base64url'));
    url.searchParams.set('code_challenge_method', 'S256');
    return { authorizationUrl: url.toString(), pending };
  }

  /**
   * Completes the sign-in from the IdP's callback query: checks it belongs to `pending`, exchanges the
   * code, verifies the id_token, and applies the allow-list. Throws ExternalSignInError otherwise.
   */
  async completeSignIn(pending: PendingSignIn, callbackQuery: Record<string, string | string[] | undefined>): Promise<ExternalIdentity> {
    // A parameter given twice (Koa's ctx.query makes it an array) counts as absent.
    const query = Object.fromEntries(Object.entries(callbackQuery).filter((e): e is [string, string] => typeof e[1] === 'string'));
    const provider = this.byName.get(pending.provider);
    const expired = this.now() - pending.createdAt > pendingLifetimeMs || pending.createdAt > this.now() + 60_000;
    const state = query.state;
    if (!provider || expired || typeof state !== 'string' || !sameString(state, pending.state)) {
      throw new ExternalSignInError(
        'invalid_state',
        'This sign-in link is not valid any more. Please start the sign-in again.',
        !provider ? `no provider named ${pending.provider}` : expired ? 'the pending sign-in expired' : 'state does not match',
      );
    }
    return this.logged(provider, () => this.complete(provider, pending, query));
  }

  private async complete(
    provider: IdentityProviderConfig,
    pending: PendingSignIn,
    query: Record<string, string | undefined>,
  ): Promise<ExternalIdentity> {
    const metadata = await this.metadata.metadata(provider);
    // RFC 9207: the response names its issuer, so one IdP's response cannot pass for another's (mix-up).
    if (query.iss !== undefined ? query.iss !== provider.issuer : metadata.authorization_response_iss_parameter_supported === true) {
      throw invalidResponse(provider, `callback: iss ${String(query.iss)} is not ${provider.issuer}`);
    }
    if (query.error !== undefined) {
      const code = /^[\w.-]{1,64}$/.test(query.error) ? query.error : 'unknown';
      const lead = idpRefusals[code] ?? 'The sign-in did not succeed at';
      throw new ExternalSignInError('idp_error', `${lead} ${provider.label}.`, `callback error=${code}`);
    }
    if (!query.code) throw invalidResponse(provider, 'callback: no code and no error');

    const tokens = await exchangeCode(this.outbound, provider, metadata, {
      code: query.code,
      redirectUri: pending.redirectUri,
      codeVerifier: pending.codeVerifier,
    });
    const claims = await verifyIdToken(provider, tokens.id_token, pending.nonce, (stale) => this.metadata.keySet(provider, stale));
    let { email, email_verified: verified, name } = claims as { email?: unknown; email_verified?: unknown; name?: unknown };
    if (email === undefined && metadata.userinfo_endpoint && tokens.access_token) {
      const info = await fetchUserInfo(this.outbound, provider, metadata.userinfo_endpoint, tokens.access_token);
      // OIDC Core §5.3.2: a UserInfo answer about someone else is not used.
      if (info.sub !== claims.sub) throw invalidResponse(provider, 'userinfo: sub differs from the id_token');
      ({ email, email_verified: verified, name } = info);
    }
    const identity: ExternalIdentity = {
      provider: provider.name,
      issuer: provider.issuer,
      subject: claims.sub,
      email: typeof email === 'string' && email.length > 0 ? email.toLowerCase() : null,
      emailVerified: typeof email === 'string' && (verified === true || verified === 'true'),
      ...(typeof name === 'string' && name ? { name: name.slice(0, 200) } : {}),
    };
    if (!isAllowed(provider, identity)) {
      throw new ExternalSignInError(
        'not_allowed',
        `Your ${provider.label} account${identity.email ? ` (${identity.email})` : ''} is not allowed to sign in here.`,
        `subject ${identity.subject}, e-mail ${identity.email ?? 'none'}${identity.emailVerified ? '' : ' (unverified)'} not on the allow-list`,
      );
    }
    return identity;
  }

  /** Logs a failure for the operator (provider, code, detail; never a token) and passes it on. */
  private async logged<T>(provider: IdentityProviderConfig, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      const known = err instanceof ExternalSignInError;
      this.logger?.warn(
        { provider: provider.name, code: known ? err.code : 'internal', detail: known ? err.detail : String(err) },
        'external sign-in failed',
      );
      throw err;
    }
  }
}
