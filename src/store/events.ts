import type { Db } from 'mongodb';
import type { WorkspaceEvent } from '../events/types.js';
import { decodeCursor, encodeCursor, type Page } from './pagination.js';

export interface EventDoc extends Omit<WorkspaceEvent, 'id'> {
  _id: string;
  recorded_at: Date;
  /** The workspace's recording order (issue #21): 1, 2, 3… */
  seq?: number;
}

export class EventStore {
  constructor(private readonly db: Db) {}

  private get events() {
    return this.db.collection<EventDoc>('events');
  }

  /** Idempotent on the event ids: an activity retried after a crash records each event once. */
  async record(events: WorkspaceEvent[]): Promise<void> {
    if (events.length === 0) return;
    const recorded_at = new Date();
    await this.events.bulkWrite(
      events.map(({ id, ...rest }) => ({
        updateOne: { filter: { _id: id }, update: { $setOnInsert: { ...rest, recorded_at } }, upsert: true },
      })),
      { ordered: false },
    );
  }

  /** Most recent first. */
  async recent(workspaceId: string, limit: number, cursor?: string): Promise<Page<EventDoc>> {
    const filter = cursor ? { workspace_id: workspaceId, _id: { $lt: decodeCursor(cursor, 1)[0]! } } : { workspace_id: workspaceId };
    const docs = await this.events
      .find(filter)
      .sort({ _id: -1 })
      .limit(limit + 1)
      .toArray();
    const items = docs.slice(0, limit);
    return { items, next_cursor: docs.length > limit ? encodeCursor([items.at(-1)!._id]) : null };
  }

  /** A workspace's events after `seq`, in recorded order (issue #21: what subscriptions deliver). */
  async after(workspaceId: string, seq: number, limit: number): Promise<EventDoc[]> {
    return this.events
      .find({ workspace_id: workspaceId, seq: { $gt: seq } })
      .sort({ seq: 1 })
      .limit(limit)
      .toArray();
  }
}
