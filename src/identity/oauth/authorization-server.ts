import { createHash, randomUUID } from 'node:crypto';
import { decodeJwt } from 'jose';
import { v7 as uuidv7 } from 'uuid';
import { randomBase62, sameHash, sha256 } from '../../kernel/crypto/opaque.js';
import type { ConsentStore } from '../../store/consents.js';
import type { OAuthGrant, OAuthStore } from '../../store/oauth.js';
import type { TokenService } from '../tokens.js';
import { consoleClient, consoleClientId, fromDoc, parseRegistration, type OAuthClient } from './clients.js';
import { OAuthError } from './errors.js';
import type { MetadataDocumentClients } from './metadata-documents.js';

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token?: string;
  scope: string;
}

/** Scopes a client may ask for and that are dropped without complaint: they mean nothing here. */
export const ignoredScopes = new Set(['offline_access', 'openid']);

/** A space-separated scope parameter, without the scopes that mean nothing here. */
export const scopeList = (value: string) => [...new Set(value.split(' ').filter((s) => s && !ignoredScopes.has(s)))];

/** A resource indicator as it is compared: without a trailing slash. */
export const normalResource = (value: string) => value.replace(/\/$/, '');

/** Lifetimes: a code is redeemed within a minute; a refresh token lives 30 days from its own issue. */
const codeTtlMs = 60_000;
const refreshTtlMs = 30 * 86_400_000;
/** The console's refresh tokens end with a working day: the browser session it rides on lives 8 hours. */
const consoleRefreshTtlMs = 8 * 3_600_000;
/** RFC 7636 §4.1: 43 to 128 unreserved characters. */
const verifierPattern = /^[A-Za-z0-9._~-]{43,128}$/;

const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

/**
 * The platform as an OAuth 2.1 authorization server for its own API and `/mcp`: authorization codes
 * with PKCE S256, refresh tokens rotated on every use with reuse detection, and access tokens bound to
 * one resource (RFC 8707). Access tokens are the platform's RS256 JWTs; each use checks that the
 * person's consent still stands and that the token's family was not revoked (credentials.ts).
 */
export class AuthorizationServer {
  constructor(
    private readonly store: OAuthStore,
    private readonly consents: ConsentStore,
    private readonly tokens: TokenService,
    readonly documents: MetadataDocumentClients,
  ) {}

  /** A registered client, or one described by a metadata document; null when there is none. */
  async client(clientId: string): Promise<OAuthClient | null> {
    if (clientId === consoleClientId) return consoleClient;
    if (this.documents.isDocumentId(clientId)) return this.documents.resolve(clientId);
    if (clientId.length > 200) return null;
    const doc = await this.store.getClient(clientId);
    return doc ? fromDoc(doc) : null;
  }

  /** RFC 7591 registration: a public client (`none`) gets no secret; a confidential one gets it once. */
  async register(body: unknown) {
    const input = parseRegistration(body);
    const method = input.token_endpoint_auth_method ?? 'client_secret_basic';
    const secret = method === 'none' ? null : randomBase62(32);
    const grantTypes = input.grant_types ?? ['authorization_code', 'refresh_token'];
    const doc = {
      _id: uuidv7(),
      client_name: input.client_name ?? new URL(input.redirect_uris[0]!).host,
      redirect_uris: input.redirect_uris,
      grant_types: grantTypes,
      token_endpoint_auth_method: method,
      secret_sha256: secret ? sha256(secret) : null,
      ...(input.client_uri ? { client_uri: input.client_uri } : {}),
      ...(input.logo_uri ? { logo_uri: input.logo_uri } : {}),
      ...(input.scope ? { scope: input.scope } : {}),
      ...(input.software_id ? { software_id: input.software_id } : {}),
      ...(input.software_version ? { software_version: input.software_version } : {}),
      created_at: new Date(),
    };
    await this.store.registerClient(doc);
    const { _id, secret_sha256: _, created_at, ...metadata } = doc;
    return {
      client_id: _id,
      client_id_issued_at: Math.floor(created_at.getTime() / 1000),
      ...(secret ? { client_secret: secret, client_secret_expires_at: 0 } : {}),
      ...metadata,
      response_types: ['code'],
    };
  }

  /**
   * Client authentication at the token endpoint (RFC 6749 §2.3): a public client names itself; a
   * confidential one proves its secret, the way it registered.
   */
  async authenticateClient(id: string | undefined, secret: string | undefined, via: 'basic' | 'post' | 'none'): Promise<OAuthClient> {
    if (!id) throw new OAuthError('invalid_client', 'client_id is required.');
    const client = await this.client(id).catch((err) => {
      if (err instanceof OAuthError) throw new OAuthError('invalid_client', err.description);
      throw err;
    });
    if (!client) throw new OAuthError('invalid_client', 'Client authentication failed.');
    if (client.token_endpoint_auth_method === 'none') {
      if (secret) throw new OAuthError('invalid_client', 'This client is public: it has no secret to send.');
      return client;
    }
    const expected = client.token_endpoint_auth_method === 'client_secret_basic' ? 'basic' : 'post';
    if (!secret || via !== expected || !sameHash(client.secret_sha256!, sha256(secret))) {
      throw new OAuthError('invalid_client', 'Client authentication failed.');
    }
    return client;
  }

  /** After the person allowed it: a one-time code for the client's redirect. */
  async issueCode(grant: OAuthGrant & { redirect_uri: string; code_challenge: string }): Promise<string> {
    const code = randomBase62(32);
    await this.store.saveCode({ _id: sha256(code), ...grant, expires_at: new Date(Date.now() + codeTtlMs) });
    return code;
  }

  async exchangeCode(
    client: OAuthClient,
    form: { code?: string; redirect_uri?: string; code_verifier?: string; resource?: string },
  ): Promise<TokenResponse> {
    if (!form.code) throw new OAuthError('invalid_request', 'code is required.');
    if (!form.code_verifier || !verifierPattern.test(form.code_verifier)) {
      throw new OAuthError('invalid_request', 'code_verifier is required: 43 to 128 characters of [A-Za-z0-9._~-] (PKCE).');
    }
    const hash = sha256(form.code);
    const doc = await this.store.getCode(hash);
    if (!doc || doc.client_id !== client.client_id) throw new OAuthError('invalid_grant', 'The authorization code is not valid.');
    // A second redemption means the code leaked: the tokens of the first are revoked too (RFC 6749 §4.1.2).
    if (!(await this.store.redeem('code', hash))) {
      await this.store.revokeFamily(hash, 'authorization code replayed');
      throw new OAuthError('invalid_grant', 'The authorization code was already used; the tokens issued for it are revoked.');
    }
    if (doc.expires_at.getTime() < Date.now()) throw new OAuthError('invalid_grant', 'The authorization code has expired.');
    if (form.redirect_uri !== doc.redirect_uri)
      throw new OAuthError('invalid_grant', 'redirect_uri does not match the authorization request.');
    if (s256(form.code_verifier) !== doc.code_challenge)
      throw new OAuthError('invalid_grant', 'code_verifier does not match the code challenge.');
    if (form.resource !== undefined && normalResource(form.resource) !== doc.resource) {
      throw new OAuthError('invalid_target', 'resource differs from the one the person authorized.');
    }
    await this.checkConsent(doc);
    await this.checkSession(client, doc);
    return this.mint(client, doc, hash, doc.scope);
  }

  async refresh(client: OAuthClient, form: { refresh_token?: string; scope?: string; resource?: string }): Promise<TokenResponse> {
    if (!form.refresh_token) throw new OAuthError('invalid_request', 'refresh_token is required.');
    if (!client.grant_types.includes('refresh_token'))
      throw new OAuthError('unauthorized_client', 'This client did not register the refresh_token grant.');
    const hash = sha256(form.refresh_token);
    const doc = await this.store.getRefreshToken(hash);
    if (!doc || doc.client_id !== client.client_id) throw new OAuthError('invalid_grant', 'The refresh token is not valid.');
    // Everything a client could get wrong is checked before the token is spent, so a bad request
    // leaves it usable; only a genuine second use revokes.
    if (doc.expires_at.getTime() < Date.now()) throw new OAuthError('invalid_grant', 'The refresh token has expired.');
    if (form.resource !== undefined && normalResource(form.resource) !== doc.resource) {
      throw new OAuthError('invalid_target', 'resource differs from the one the person authorized.');
    }
    const asked = form.scope === undefined ? [] : scopeList(form.scope);
    const extra = asked.filter((s) => !doc.scope.includes(s));
    if (extra.length) throw new OAuthError('invalid_scope', `Not granted: ${extra.join(' ')}.`);
    if (await this.store.isFamilyRevoked(doc.family_id)) throw new OAuthError('invalid_grant', 'The refresh token was revoked.');
    await this.checkConsent(doc);
    await this.checkSession(client, doc);
    // Rotation with reuse detection (OAuth 2.1 §4.3.1): a used token coming back means one of two
    // holders is not the client, and the whole family is revoked.
    if (!(await this.store.redeem('refresh', hash))) {
      await this.store.revokeFamily(doc.family_id, 'refresh token reused');
      throw new OAuthError('invalid_grant', 'The refresh token was already used; every token of this grant is now revoked.');
    }
    // RFC 6749 §6: the new refresh token keeps the grant's scope; only this access token is narrowed.
    return this.mint(client, doc, doc.family_id, asked.length ? asked : doc.scope);
  }

  /**
   * RFC 7009: revoking a refresh token, or an access token, of this client revokes its family (every
   * token of the grant); anything else is ignored, as the RFC asks.
   */
  async revoke(client: OAuthClient, token: string): Promise<void> {
    const doc = await this.store.getRefreshToken(sha256(token));
    if (doc) {
      if (doc.client_id === client.client_id) await this.store.revokeFamily(doc.family_id, 'revoked by the client');
      return;
    }
    // An access token names the resource it was minted for; its signature and expiry still must hold.
    let audience: string | string[] | undefined;
    try {
      audience = decodeJwt(token).aud;
    } catch {
      return;
    }
    const claims = audience ? await this.tokens.verify(token, audience).catch(() => null) : null;
    if (claims?.kind === 'oauth' && claims.client_id === client.client_id)
      await this.store.revokeFamily(String(claims.fam), 'revoked by the client');
  }

  /** A third-party client's grant lives as long as the person's consent; the console asks none. */
  private async checkConsent(grant: OAuthGrant): Promise<void> {
    if (grant.client_id === consoleClientId) return;
    const consent = await this.consents.get(grant.person_id, 'oauth_client', grant.client_id);
    if (consent?.oauth?.grant_id !== grant.consent_grant_id)
      throw new OAuthError('invalid_grant', 'The person revoked this authorization.');
  }

  /**
   * The console's grant lives as long as the browser session it came through: signing out ends it
   * (on any replica). A console grant without a session is from before sessions had ids: ended too.
   */
  private async checkSession(client: OAuthClient, grant: OAuthGrant): Promise<void> {
    if (client.source !== 'first_party') return;
    if (!grant.session_id || (await this.store.isSessionEnded(grant.session_id)))
      throw new OAuthError('invalid_grant', 'The browser session this grant came through was signed out.');
  }

  /** An access token with `scope`, and a refresh token keeping the grant's scope if the client may refresh. */
  private async mint(client: OAuthClient, grant: OAuthGrant, familyId: string, scopes: string[]): Promise<TokenResponse> {
    const scope = scopes.join(' ');
    // The console's token is the person's own (kind `console`); any other client's is an OAuth client's.
    const claims =
      client.source === 'first_party'
        ? { kind: 'console', client_id: grant.client_id, fam: familyId, sid: grant.session_id }
        : { kind: 'oauth', client_id: grant.client_id, scope, gid: grant.consent_grant_id, fam: familyId };
    const issued = await this.tokens.issue(grant.person_id, claims, undefined, grant.resource);
    const response = { access_token: issued.access_token, token_type: 'Bearer' as const, expires_in: issued.expires_in, scope };
    if (!client.grant_types.includes('refresh_token')) return response;
    const refresh = randomBase62(32);
    await this.store.saveRefreshToken({
      _id: sha256(refresh),
      client_id: grant.client_id,
      person_id: grant.person_id,
      scope: grant.scope,
      resource: grant.resource,
      filters: grant.filters,
      consent_grant_id: grant.consent_grant_id,
      ...(grant.session_id ? { session_id: grant.session_id } : {}),
      family_id: familyId,
      expires_at: new Date(Date.now() + (client.source === 'first_party' ? consoleRefreshTtlMs : refreshTtlMs)),
      created_at: new Date(),
    });
    return { ...response, refresh_token: refresh };
  }
}

export const newGrantId = () => randomUUID();
