import type { Db, Filter } from 'mongodb';
import type { EventKind } from '../events/types.js';
import type { ActorKind } from '../identity/principal.js';
import { isDuplicateKey } from './mongo.js';
import { decodeCursor, encodeCursor, type Page } from './pagination.js';

export type SubscriptionState = 'active' | 'paused';

/**
 * A Tier 3 subscription (issue #21): a registered MCP server's webhook for one workspace's events.
 * The delivery workflow holds the authoritative cursor and state; this document is their view for
 * the API, written by that workflow's activities alone (one writer), and by the API at creation.
 */
export interface SubscriptionDoc {
  _id: string;
  workspace_id: string;
  /** The MCP server artifact the subscription is for. */
  server_id: string;
  /** The person it belongs to: the creator, or the server credential's owner. */
  owner_id: string;
  created_by: { kind: ActorKind; id: string };
  url: string;
  /** Event kinds delivered; null: all. */
  kinds: EventKind[] | null;
  /** Content-type patterns (exact, `type/*`, `*`) delivered; null: all. */
  content_types: string[] | null;
  /** The signing secret, in the secrets store under the owner `subscription:<id>` (no person lists or deletes it). */
  secret_id: string;
  /** After a rotation: the secret before, which still signs too until `previous_secret_until`. */
  previous_secret_id?: string | null;
  previous_secret_until?: Date | null;
  state: SubscriptionState;
  /** The seq of the last event delivered or skipped. */
  cursor: number;
  /** Failed attempts on the event at the head of the queue when it paused. */
  failures: number;
  paused_at: Date | null;
  pause_reason: string | null;
  created_at: Date;
  updated_at: Date;
}

/** One event's delivery to one subscription: its latest attempt (`_id` `<subscription>:<event>`). */
export interface DeliveryDoc {
  _id: string;
  subscription_id: string;
  event_id: string;
  seq: number;
  attempts: number;
  outcome: 'delivered' | 'failed';
  status_code: number | null;
  error: string | null;
  at: Date;
}

/** Where a subscription's secret is kept: an owner no person has, so GET /secrets never shows it. */
export const subscriptionSecretOwner = (subscriptionId: string) => `subscription:${subscriptionId}`;

/** Deliveries kept per subscription: older ones are pruned when its workflow continues as new. */
export const deliveriesKept = 1000;

export class SubscriptionStore {
  constructor(private readonly db: Db) {}

  private get coll() {
    return this.db.collection<SubscriptionDoc>('subscriptions');
  }

  private get deliveries() {
    return this.db.collection<DeliveryDoc>('subscription_deliveries');
  }

  async create(doc: SubscriptionDoc): Promise<void> {
    await this.coll.insertOne(doc);
  }

  get(id: string): Promise<SubscriptionDoc | null> {
    return this.coll.findOne({ _id: id });
  }

  async delete(id: string): Promise<void> {
    await this.deliveries.deleteMany({ subscription_id: id });
    await this.coll.deleteOne({ _id: id });
  }

  /** A new signing secret (written by the API only; the workflow never writes these fields). */
  async rotateSecret(id: string, secretId: string, previousId: string, previousUntil: Date): Promise<void> {
    await this.coll.updateOne(
      { _id: id },
      { $set: { secret_id: secretId, previous_secret_id: previousId, previous_secret_until: previousUntil, updated_at: new Date() } },
    );
  }

  countOwned(ownerId: string): Promise<number> {
    return this.coll.countDocuments({ owner_id: ownerId });
  }

  /** The workspace's subscriptions a principal may see (`narrow`: owner and, for a server credential, its server). */
  async list(workspaceId: string, narrow: Filter<SubscriptionDoc>, limit: number, cursor?: string): Promise<Page<SubscriptionDoc>> {
    const filter: Filter<SubscriptionDoc> = { workspace_id: workspaceId, ...narrow };
    if (cursor) filter._id = { $gt: decodeCursor(cursor, 1)[0]! };
    const docs = await this.coll
      .find(filter)
      .sort({ _id: 1 })
      .limit(limit + 1)
      .toArray();
    const items = docs.slice(0, limit);
    return { items, next_cursor: docs.length > limit ? encodeCursor([items.at(-1)!._id]) : null };
  }

  /** The workspace's active subscriptions (the ones a new event wakes), bounded. */
  activeIn(workspaceId: string, limit = 1000): Promise<SubscriptionDoc[]> {
    return this.coll.find({ workspace_id: workspaceId, state: 'active' }).limit(limit).toArray();
  }

  /** The cursor as the workflow holds it; never moves back (an attempt that timed out may write late). */
  async saveCursor(id: string, cursor: number): Promise<void> {
    await this.coll.updateOne({ _id: id, cursor: { $lt: cursor } }, { $set: { cursor, updated_at: new Date() } });
  }

  /** After a delivery: the cursor moves on, and the head event's failures are over. */
  async delivered(id: string, cursor: number): Promise<void> {
    await this.coll.updateOne({ _id: id, cursor: { $lt: cursor } }, { $set: { cursor, failures: 0, updated_at: new Date() } });
  }

  async setState(id: string, change: { state: SubscriptionState; cursor: number; failures: number; reason: string | null }): Promise<void> {
    const paused = change.state === 'paused';
    await this.coll.updateOne(
      { _id: id },
      {
        $set: {
          state: change.state,
          failures: change.failures,
          paused_at: paused ? new Date() : null,
          pause_reason: paused ? change.reason : null,
          updated_at: new Date(),
        },
      },
    );
    await this.saveCursor(id, change.cursor);
  }

  /**
   * Records an attempt unless a later one is recorded already: the filter on `attempts` skips an
   * older attempt's late write, and the unique `_id` makes its upsert fail instead of duplicating.
   */
  async recordAttempt(doc: DeliveryDoc): Promise<void> {
    const { _id, ...fields } = doc;
    try {
      await this.deliveries.updateOne({ _id, attempts: { $lt: doc.attempts } }, { $set: fields }, { upsert: true });
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
  }

  /** Most recent first (by event order). */
  async deliveriesOf(id: string, limit: number, cursor?: string): Promise<Page<DeliveryDoc>> {
    const filter: Filter<DeliveryDoc> = { subscription_id: id };
    if (cursor) {
      const seq = Number(decodeCursor(cursor, 1)[0]);
      if (Number.isSafeInteger(seq)) filter.seq = { $lt: seq };
    }
    const docs = await this.deliveries
      .find(filter)
      .sort({ seq: -1 })
      .limit(limit + 1)
      .toArray();
    const items = docs.slice(0, limit);
    return { items, next_cursor: docs.length > limit ? encodeCursor([String(items.at(-1)!.seq)]) : null };
  }

  /** Keeps the newest `deliveriesKept` deliveries of a subscription. */
  async pruneDeliveries(id: string): Promise<void> {
    const [oldest] = await this.deliveries
      .find({ subscription_id: id }, { projection: { seq: 1 } })
      .sort({ seq: -1 })
      .skip(deliveriesKept)
      .limit(1)
      .toArray();
    if (oldest) await this.deliveries.deleteMany({ subscription_id: id, seq: { $lte: oldest.seq } });
  }

  /** The seq of the workspace's latest recorded event (0 when none): a new subscription starts after it. */
  async latestSeq(workspaceId: string): Promise<number> {
    const [last] = await this.db
      .collection<{ _id: string; workspace_id: string; seq?: number }>('events')
      .find({ workspace_id: workspaceId, seq: { $exists: true } }, { projection: { seq: 1 } })
      .sort({ seq: -1 })
      .limit(1)
      .toArray();
    return last?.seq ?? 0;
  }
}
