import type { Db } from 'mongodb';
import { deleteByIds } from './by-id.js';
import { insertNew } from './mongo.js';
import { revisionId } from './revisions.js';

/**
 * An artifact revision waiting for its embedding (issue #23: indexing in batches). Put here by the
 * indexing workflow from the writes' signals, taken in batches by its embedding activity and removed
 * only once the vectors are stored: a worker killed mid-batch leaves its entries for the next one.
 */
export interface EmbeddingBacklogDoc {
  /** `<artifact id>:<revision, 10 digits>`: one entry per revision, however often it is queued. */
  _id: string;
  artifact_id: string;
  revision: number;
  queued_at: Date;
}

export interface QueuedRevision {
  artifactId: string;
  revision: number;
}

export class EmbeddingBacklog {
  constructor(private readonly db: Db) {}

  private get coll() {
    return this.db.collection<EmbeddingBacklogDoc>('embedding_backlog');
  }

  /** Queues revisions; one queued already (a retried activity, a signal sent twice) stays as it is. */
  async add(items: QueuedRevision[], now = new Date()): Promise<void> {
    if (items.length === 0) return;
    const docs = items.map((i) => ({
      _id: revisionId(i.artifactId, i.revision),
      artifact_id: i.artifactId,
      revision: i.revision,
      queued_at: now,
    }));
    // Unordered: every other entry goes in; duplicates are revisions queued before, which is success.
    await insertNew(this.coll, docs);
  }

  /** Up to `limit` entries, oldest first. */
  take(limit: number): Promise<EmbeddingBacklogDoc[]> {
    return this.coll.find({}).sort({ queued_at: 1 }).limit(limit).toArray();
  }

  /**
   * Removes entries whose vectors are stored (or whose artifact is gone): by `_id`, so twice is once.
   * One delete each (deleteByIds): `$in` scanned the whole backlog, 91 ms a slice at 5,000 entries
   * against 7 ms, so a burst's removals had grown with the burst.
   */
  async done(ids: string[]): Promise<void> {
    await deleteByIds(this.coll, ids);
  }

  count(): Promise<number> {
    return this.coll.countDocuments({});
  }
}
