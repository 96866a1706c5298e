import type { Db } from 'mongodb';
import type { WorkspaceEvent } from '../events/types.js';
import { decodeCursor, encodeCursor, type Page } from './pagination.js';
import { findByIds } from './by-id.js';

export interface EventDoc extends Omit<WorkspaceEvent, 'id'> {
  _id: string;
  recorded_at: Date;
  /** The workspace's recording order (issue #21): 1, 2, 3… */
  seq?: number;
}

/** A bulk insert that failed only on ids already there. */
function onlyDuplicates(err: unknown): boolean {
  const found = (err as { writeErrors?: unknown }).writeErrors;
  const list = Array.isArray(found) ? found : found ? [found] : [];
  return list.length > 0 && list.every((e) => (e as { code?: number }).code === 11000);
}

export class EventStore {
  constructor(private readonly db: Db) {}

  private get events() {
    return this.db.collection<EventDoc>('events');
  }

  /** The seq order of a workspace's events (after(), lastSeq()). */
  async ensureIndexes(): Promise<void> {
    await this.events.createIndex({ workspace_id: 1, seq: 1 }, { name: 'workspace_seq' });
  }

  /**
   * Idempotent on the event ids (a unique insert each): an event recorded twice keeps its first
   * recording, seq included. Returns the ids whose stored seq is the one given here: recorded now, or
   * by an earlier attempt of the same batch (an activity retried after a crash); an event that was
   * recorded before under another seq is not among them.
   */
  async record(events: (WorkspaceEvent & { seq?: number })[]): Promise<string[]> {
    if (events.length === 0) return [];
    const recorded_at = new Date();
    try {
      await this.events.insertMany(
        events.map(({ id, ...rest }) => ({ _id: id, ...rest, recorded_at })),
        { ordered: false },
      );
    } catch (err) {
      if (!onlyDuplicates(err)) throw err;
    }
    const stored = await findByIds(
      this.events,
      events.map((e) => e.id),
      { projection: { seq: 1 } },
    );
    const seqOf = new Map(stored.map((doc) => [doc._id, doc.seq]));
    return events.filter((e) => seqOf.has(e.id) && seqOf.get(e.id) === e.seq).map((e) => e.id);
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
  /** The highest seq recorded in a workspace (0 when none): where a fresh event workflow run counts on from. */
  async lastSeq(workspaceId: string): Promise<number> {
    const [last] = await this.events
      .find({ workspace_id: workspaceId, seq: { $gt: 0 } }, { projection: { seq: 1 } })
      .sort({ seq: -1 })
      .limit(1)
      .toArray();
    return last?.seq ?? 0;
  }

  async after(workspaceId: string, seq: number, limit: number): Promise<EventDoc[]> {
    return this.events
      .find({ workspace_id: workspaceId, seq: { $gt: seq } })
      .sort({ seq: 1 })
      .limit(limit)
      .toArray();
  }
}
