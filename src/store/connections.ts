import type { Db } from 'mongodb';
import type { Envelope, KeyRing } from '../kernel/crypto/envelope.js';
import type { AuthorizerPin } from '../connections/pin.js';
import { KeyedLock } from './keyed-lock.js';
import { isDuplicateKey } from './mongo.js';

export const connectionStatuses = ['pending', 'active', 'needs_reconsent', 'failed'] as const;
export type ConnectionStatus = (typeof connectionStatuses)[number];

/** Why a connection or one consent attempt failed; the provider's own words where it gave them. */
export interface ConnectionError {
  /** access_denied | provider_error | token_rejected | consent_expired | refresh_rejected | superseded */
  code: string;
  detail: string;
  at: Date;
}

/** What the provider issued; sealed as one envelope, never stored or returned in the clear. */
export interface TokenSet {
  access_token: string;
  refresh_token?: string;
  token_type: string;
}

/**
 * A person's binding to an authorizer (SPEC §2.5). `_id` is fixed by the pair, so a person has one
 * connection per authorizer; its workflow is `connection-<_id>`.
 */
export interface ConnectionDoc {
  _id: string;
  user_id: string;
  authorizer_id: string;
  status: ConnectionStatus;
  /** Server credentials (client ids) that may project this connection (POST /connections/{id}/project). */
  server_client_ids: string[];
  tokens?: Envelope;
  /** Bumped on every token change: the workflow's history holds this number, never a token. */
  token_version: number;
  expires_at?: Date;
  lifetime_seconds?: number;
  has_refresh_token?: boolean;
  granted_scopes?: string[];
  connected_at?: Date;
  refreshed_at?: Date;
  refresh_count: number;
  error?: ConnectionError;
  /** The authorizer as it was when the person consented (connections/pin.ts); absent on connections made before it was recorded. */
  authorizer_pin?: AuthorizerPin;
  created_at: Date;
  updated_at: Date;
}

/** One consent attempt: `_id` is the SHA-256 of its `state`, which only the provider redirect carries. */
export interface AttemptDoc {
  _id: string;
  attempt_id: string;
  connection_id: string;
  user_id: string;
  authorizer_id: string;
  /** The PKCE code verifier, sealed (it never leaves the platform, and never enters Temporal). */
  verifier?: Envelope;
  /** The provider redirect URL (it carries `state`), sealed until the start request reads it. */
  authorization_url?: Envelope;
  redirect_uri: string;
  created_at: Date;
  expires_at: Date;
  consumed_at?: Date;
  /** The authorizer as it was when the attempt began: what the person is sent to consent to. */
  authorizer_pin?: AuthorizerPin;
  /** What the provider answered at the callback: a sealed code, or its error. */
  outcome?: { code?: Envelope; error?: string; error_description?: string };
}

export class ConnectionStore {
  private readonly lock = new KeyedLock();

  constructor(
    private readonly db: Db,
    private readonly ring: KeyRing,
  ) {}

  private get coll() {
    return this.db.collection<ConnectionDoc>('connections');
  }

  private get attempts() {
    return this.db.collection<AttemptDoc>('connection_attempts');
  }

  get(id: string): Promise<ConnectionDoc | null> {
    return this.coll.findOne({ _id: id });
  }

  list(userId: string, filter: { authorizerId?: string; clientId?: string } = {}): Promise<ConnectionDoc[]> {
    return this.coll
      .find({
        user_id: userId,
        ...(filter.authorizerId ? { authorizer_id: filter.authorizerId } : {}),
        ...(filter.clientId ? { server_client_ids: filter.clientId } : {}),
      })
      .sort({ created_at: 1 })
      .toArray();
  }

  /** Creates the record on the first start; a later one changes only who may project it (when `bind` is given). Tokens stay. */
  async open(doc: Pick<ConnectionDoc, '_id' | 'user_id' | 'authorizer_id'>, bind?: string[]): Promise<ConnectionDoc> {
    return this.lock.run(doc._id, async () => {
      const now = new Date();
      const existing = await this.get(doc._id);
      if (existing) {
        if (!bind) return existing;
        await this.coll.updateOne({ _id: doc._id }, { $set: { server_client_ids: bind, updated_at: now } });
        return { ...existing, server_client_ids: bind, updated_at: now };
      }
      const created: ConnectionDoc = {
        ...doc,
        server_client_ids: bind ?? [],
        status: 'pending',
        token_version: 0,
        refresh_count: 0,
        created_at: now,
        updated_at: now,
      };
      await this.coll.insertOne(created);
      return created;
    });
  }

  /** Stores a new token set (sealed), bumping the version the workflow keeps. */
  async storeTokens(
    id: string,
    tokens: TokenSet,
    info: { expiresIn?: number; scopes?: string[]; refreshed: boolean; pin?: AuthorizerPin },
  ): Promise<ConnectionDoc | null> {
    return this.lock.run(id, async () => {
      const current = await this.get(id);
      if (!current) return null;
      const version = current.token_version + 1;
      const now = new Date();
      const set: Partial<ConnectionDoc> = {
        status: 'active',
        tokens: this.ring.sealEnvelope(JSON.stringify(tokens), `connection:${id}`),
        token_version: version,
        has_refresh_token: Boolean(tokens.refresh_token),
        updated_at: now,
        ...(info.scopes ? { granted_scopes: info.scopes } : {}),
        ...(info.pin ? { authorizer_pin: info.pin } : {}),
        ...(info.refreshed ? { refreshed_at: now, refresh_count: current.refresh_count + 1 } : { connected_at: now, refresh_count: 0 }),
      };
      const unset: Record<string, ''> = { error: '' };
      if (info.expiresIn !== undefined)
        Object.assign(set, { expires_at: new Date(now.getTime() + info.expiresIn * 1000), lifetime_seconds: info.expiresIn });
      else Object.assign(unset, { expires_at: '', lifetime_seconds: '' });
      await this.coll.updateOne({ _id: id }, { $set: set, $unset: unset });
      return { ...current, ...set };
    });
  }

  /** Marks the connection failed, or (a revoked refresh token) in need of new consent; tokens are dropped then. */
  async fail(id: string, status: 'failed' | 'needs_reconsent', error: Omit<ConnectionError, 'at'>): Promise<void> {
    await this.lock.run(id, async () => {
      const now = new Date();
      await this.coll.updateOne(
        { _id: id },
        { $set: { status, error: { ...error, at: now }, updated_at: now }, $unset: { tokens: '', expires_at: '', has_refresh_token: '' } },
      );
    });
  }

  /** A new consent attempt on a connection that is not active. */
  async setPending(id: string): Promise<void> {
    await this.lock.run(id, async () => {
      await this.coll.updateOne(
        { _id: id, status: { $ne: 'active' } },
        { $set: { status: 'pending', updated_at: new Date() }, $unset: { error: '' } },
      );
    });
  }

  /** Records why a consent attempt failed, on a connection that keeps working (a re-consent that did not finish). */
  async noteError(id: string, error: Omit<ConnectionError, 'at'>): Promise<void> {
    await this.coll.updateOne({ _id: id }, { $set: { error: { ...error, at: new Date() }, updated_at: new Date() } });
  }

  tokensOf(doc: ConnectionDoc): TokenSet | null {
    return doc.tokens ? (JSON.parse(this.ring.openEnvelope(doc.tokens, `connection:${doc._id}`)) as TokenSet) : null;
  }

  async delete(id: string): Promise<boolean> {
    await this.attempts.deleteMany({ connection_id: id });
    return (await this.coll.deleteOne({ _id: id })).deletedCount === 1;
  }

  // Consent attempts.

  async createAttempt(
    doc: Omit<AttemptDoc, 'verifier' | 'authorization_url'> & { verifier?: string; authorization_url: string },
  ): Promise<void> {
    const { verifier, authorization_url, ...rest } = doc;
    await this.attempts.insertOne({
      ...rest,
      authorization_url: this.ring.sealEnvelope(authorization_url, `url:${doc._id}`),
      ...(verifier ? { verifier: this.ring.sealEnvelope(verifier, `attempt:${doc._id}`) } : {}),
    });
  }

  /** The redirect URL of an attempt not yet answered, for the start request that began it. */
  async authorizationUrl(attemptId: string): Promise<string | null> {
    const doc = await this.attemptById(attemptId);
    return doc?.authorization_url && !doc.consumed_at ? this.ring.openEnvelope(doc.authorization_url, `url:${doc._id}`) : null;
  }

  attemptByStateHash(hash: string): Promise<AttemptDoc | null> {
    return this.attempts.findOne({ _id: hash });
  }

  attemptById(attemptId: string): Promise<AttemptDoc | null> {
    return this.attempts.findOne({ attempt_id: attemptId });
  }

  /**
   * Consumes an attempt once: the first callback records the provider's answer and wins; any later
   * one (a replayed `state`) gets false. The winner is whoever inserts the attempt's use record (a
   * unique `_id`, atomic on every engine, across API replicas); only the winner then writes the
   * attempt. The workflow accepts one callback per attempt too.
   */
  async consume(hash: string, outcome: { code?: string; error?: string; error_description?: string }): Promise<boolean> {
    return this.lock.run(`attempt:${hash}`, async () => {
      if (!(await this.attempts.findOne({ _id: hash, consumed_at: { $exists: false } }, { projection: { _id: 1 } }))) return false;
      try {
        await this.db.collection<{ _id: string; used_at: Date }>('connection_attempt_uses').insertOne({ _id: hash, used_at: new Date() });
      } catch (err) {
        if (isDuplicateKey(err)) return false;
        throw err;
      }
      const sealed = {
        ...(outcome.code ? { code: this.ring.sealEnvelope(outcome.code, `code:${hash}`) } : {}),
        ...(outcome.error ? { error: outcome.error } : {}),
        ...(outcome.error_description ? { error_description: outcome.error_description } : {}),
      };
      const r = await this.attempts.updateOne(
        { _id: hash, consumed_at: { $exists: false } },
        { $set: { consumed_at: new Date(), outcome: sealed } },
      );
      return r.modifiedCount === 1;
    });
  }

  /** The code and verifier of a consumed attempt, opened for the exchange (then spent: they are single use). */
  openAttempt(doc: AttemptDoc): { code?: string; verifier?: string } {
    return {
      ...(doc.outcome?.code ? { code: this.ring.openEnvelope(doc.outcome.code, `code:${doc._id}`) } : {}),
      ...(doc.verifier ? { verifier: this.ring.openEnvelope(doc.verifier, `attempt:${doc._id}`) } : {}),
    };
  }

  /** After the exchange, the code and verifier are destroyed; the spent attempt stays to recognise a replayed `state`. */
  async spendAttempt(attemptId: string): Promise<void> {
    await this.attempts.updateOne({ attempt_id: attemptId }, { $unset: { verifier: '', authorization_url: '', 'outcome.code': '' } });
  }

  /** A newer start supersedes this connection's unanswered attempts; spent ones are kept for a day. */
  async dropOtherAttempts(connectionId: string, keep: string): Promise<void> {
    const dayAgo = new Date(Date.now() - 86_400_000);
    await this.attempts.deleteMany({
      connection_id: connectionId,
      attempt_id: { $ne: keep },
      $or: [{ consumed_at: { $exists: false } }, { expires_at: { $lt: dayAgo } }],
    });
  }
}
