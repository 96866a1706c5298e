import type { Db } from 'mongodb';
import { v7 as uuidv7 } from 'uuid';

/**
 * An append-only log of artifacts whose searchable state changed (written, deleted, embedded).
 * Every API replica tails it to keep its in-process index current; FerretDB has no change streams.
 */
export interface SearchChangeDoc {
  _id: string; // UUIDv7: time-ordered
  artifact_id: string;
}

/** The smallest UUIDv7 of a given millisecond: a cursor for "changes since time t". */
export function uuidv7Floor(ms: number): string {
  const hex = Math.max(0, ms).toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7000-8000-000000000000`;
}

/** The millisecond a UUIDv7 was made at: the inverse of uuidv7Floor. */
export const uuidv7Time = (uuidv7: string) => parseInt(uuidv7.slice(0, 8) + uuidv7.slice(9, 13), 16);

export class SearchChangeStore {
  constructor(private readonly db: Db) {}

  private get coll() {
    return this.db.collection<SearchChangeDoc>('search_changes');
  }

  /** Logs the artifacts' changes; returns the ids of the entries it wrote. */
  async record(...artifactIds: string[]): Promise<string[]> {
    const docs = artifactIds.map((id) => ({ _id: uuidv7(), artifact_id: id }));
    if (docs.length) await this.coll.insertMany(docs);
    return docs.map((d) => d._id);
  }

  /** One page of changes after `afterId` (exclusive), in id order. */
  page(afterId: string, limit: number): Promise<SearchChangeDoc[]> {
    return this.coll
      .find({ _id: { $gt: afterId } })
      .sort({ _id: 1 })
      .limit(limit)
      .toArray();
  }

  async prune(olderThanMs: number): Promise<void> {
    await this.coll.deleteMany({ _id: { $lt: uuidv7Floor(olderThanMs) } });
  }
}
