import type { Db } from 'mongodb';
import { v7 as uuidv7 } from 'uuid';

/**
 * One failed sign-in, or a reset (a successful sign-in, an administrator's unlock) after which the
 * earlier failures no longer count. Every event is its own inserted document, never an update, so
 * replicas counting at once cannot lose one (FerretDB does not isolate updates; docs/decisions.md).
 */
export interface SignInEventDoc {
  _id: string;
  /** SHA-256 of the lower-cased e-mail: the same for an account that exists and one that does not. */
  account: string;
  kind: 'failure' | 'reset';
  at: Date;
  /** Failures: the client address. Resets: why, and who unlocked. */
  ip?: string;
  reason?: 'success' | 'unlock';
  by?: string;
}

export class SignInEventStore {
  constructor(private readonly db: Db) {}

  private get coll() {
    return this.db.collection<SignInEventDoc>('sign_in_events');
  }

  /** The account's newest events since `since` (newest first), at most `limit`, leaving out `except`. */
  recent(account: string, since: Date, limit: number, except?: string): Promise<SignInEventDoc[]> {
    const filter = { account, at: { $gt: since }, ...(except ? { _id: { $ne: except } } : {}) };
    return this.coll.find(filter).sort({ at: -1, _id: -1 }).limit(limit).toArray();
  }

  async record(event: Omit<SignInEventDoc, '_id' | 'at'>): Promise<SignInEventDoc> {
    const doc: SignInEventDoc = { _id: uuidv7(), at: new Date(), ...event };
    await this.coll.insertOne(doc);
    return doc;
  }

  async remove(id: string): Promise<void> {
    await this.coll.deleteOne({ _id: id });
  }

  /** Expiry in code (FerretDB has no TTL indexes): events older than `before` no longer matter. */
  async sweep(before: Date): Promise<void> {
    await this.coll.deleteMany({ at: { $lt: before } });
  }
}
