import type { Db } from 'mongodb';
import type { ResourceFilters } from '../identity/principal.js';
import { isDuplicateKey } from './mongo.js';

/** A client registered through RFC 7591 dynamic registration. The secret, if any, is kept as a SHA-256. */
export interface OAuthClientDoc {
  _id: string; // client_id
  client_name: string;
  redirect_uris: string[];
  grant_types: string[];
  token_endpoint_auth_method: 'none' | 'client_secret_post' | 'client_secret_basic';
  secret_sha256: string | null;
  client_uri?: string;
  logo_uri?: string;
  scope?: string;
  software_id?: string;
  software_version?: string;
  created_at: Date;
}

/** What an authorization code or a refresh token grants: who, to which client, for what, where. */
export interface OAuthGrant {
  client_id: string;
  person_id: string;
  scope: string[];
  /** RFC 8707: the one resource the tokens are bound to. */
  resource: string;
  filters: ResourceFilters;
  /** The consent the grant came from: revoking (or replacing) it ends the grant. */
  consent_grant_id: string;
  /** The browser session the grant was made through (the console's grants): its sign-out ends the grant. */
  session_id?: string;
}

/**
 * A browser session that was signed out. Nothing deletes these records yet (as with expired codes and
 * refresh tokens): they stay. `expires_at` is when the session's cookie would have expired anyway, so a
 * later sweep may delete any record past it.
 */
export interface EndedSessionDoc {
  _id: string; // the session id (the `sid` of its signed cookie)
  person_id: string;
  ended_at: Date;
  expires_at: Date;
}

export interface OAuthCodeDoc extends OAuthGrant {
  _id: string; // sha256 of the code
  redirect_uri: string;
  code_challenge: string;
  expires_at: Date;
}

export interface OAuthRefreshDoc extends OAuthGrant {
  _id: string; // sha256 of the token
  /** Every refresh token descending from one authorization code: reuse of any of them revokes them all. */
  family_id: string;
  expires_at: Date;
  created_at: Date;
}

/**
 * The authorization server's records. Single use (codes, refresh tokens) and revocation are unique
 * inserts of marker documents: the first redemption wins atomically on any MongoDB-wire engine, and a
 * second one is seen for what it is (DESIGN principle 2).
 */
export class OAuthStore {
  constructor(private readonly db: Db) {}

  private get clients() {
    return this.db.collection<OAuthClientDoc>('oauth_clients');
  }
  private get codes() {
    return this.db.collection<OAuthCodeDoc>('oauth_codes');
  }
  private get refreshTokens() {
    return this.db.collection<OAuthRefreshDoc>('oauth_refresh_tokens');
  }
  private get redemptions() {
    return this.db.collection<{ _id: string; at: Date }>('oauth_redemptions');
  }
  private get revocations() {
    return this.db.collection<{ _id: string; reason: string; at: Date }>('oauth_revoked_families');
  }
  private get endedSessions() {
    return this.db.collection<EndedSessionDoc>('oauth_ended_sessions');
  }

  async registerClient(doc: OAuthClientDoc): Promise<void> {
    await this.clients.insertOne(doc);
  }

  getClient(id: string): Promise<OAuthClientDoc | null> {
    return this.clients.findOne({ _id: id });
  }

  async saveCode(doc: OAuthCodeDoc): Promise<void> {
    await this.codes.insertOne(doc);
  }

  getCode(hash: string): Promise<OAuthCodeDoc | null> {
    return this.codes.findOne({ _id: hash });
  }

  async saveRefreshToken(doc: OAuthRefreshDoc): Promise<void> {
    await this.refreshTokens.insertOne(doc);
  }

  getRefreshToken(hash: string): Promise<OAuthRefreshDoc | null> {
    return this.refreshTokens.findOne({ _id: hash });
  }

  /** Marks a code or refresh token used; false if it already was (a replay). */
  async redeem(kind: 'code' | 'refresh', hash: string): Promise<boolean> {
    try {
      await this.redemptions.insertOne({ _id: `${kind}:${hash}`, at: new Date() });
      return true;
    } catch (err) {
      if (isDuplicateKey(err)) return false;
      throw err;
    }
  }

  async revokeFamily(familyId: string, reason: string): Promise<void> {
    try {
      await this.revocations.insertOne({ _id: familyId, reason, at: new Date() });
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
  }

  async isFamilyRevoked(familyId: string): Promise<boolean> {
    return (await this.revocations.findOne({ _id: familyId }, { projection: { _id: 1 } })) !== null;
  }

  /**
   * Ends a browser session for every replica: a unique insert keyed by the session id (ending it
   * twice is harmless). Each replica reads it by `_id` whenever it accepts the session's cookie.
   */
  async endSession(doc: EndedSessionDoc): Promise<void> {
    try {
      await this.endedSessions.insertOne(doc);
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
  }

  async isSessionEnded(sessionId: string): Promise<boolean> {
    return (await this.endedSessions.findOne({ _id: sessionId }, { projection: { _id: 1 } })) !== null;
  }
}
