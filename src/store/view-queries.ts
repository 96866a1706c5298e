import type { Db, Sort } from 'mongodb';
import type { ArtifactDoc } from './artifact-doc.js';
import { findByIds } from './by-id.js';

/**
 * The store reads behind a view's results (issue #36): the first artifacts of ONE container in the
 * view's order that a filter keeps. The query holds the container and the order only, so that both
 * engines answer it with an ordered scan of an index that leads with `collection_id` (below), stopping
 * at the LIMIT: a filter in the query (a pattern on the type, a tag, a context field, "not archived")
 * has no statistics on the embedded PostgreSQL store, which then guesses it keeps a handful of rows
 * and reads and sorts the whole container instead (measured: test/views/view-plans.test.ts). The
 * filter runs here, on each row read, and the read grows (×2) until enough rows are kept, the
 * container is read to its end, or `maxScan` rows were read. What a view costs follows its sources,
 * its limit and how much its filter keeps, never what other containers hold.
 */

/** The orders a view reads in the store (relevance comes from search, not from here). */
export type StoredOrder = 'updated_desc' | 'created_desc' | 'title_asc' | 'position';

/** Rows read from one container at most, for one evaluation. */
export const maxScan = 4000;
const growth = 2;

export interface ContainerQuery {
  containerId: string;
  order: StoredOrder;
  /** How many kept rows are wanted. */
  want: number;
  /** Whether the row passes the view's filter (and the caller's type scopes). */
  keep: (doc: ArtifactDoc) => boolean;
  /** Rows the first read asks for (more when the filter keeps few). */
  firstRead: number;
  /** Rows read at most (default `maxScan`). */
  maxScan?: number;
}

export interface ContainerRows {
  /** Kept rows, in order, at most `want`. */
  rows: ArtifactDoc[];
  /**
   * Null when the kept rows are exactly the container's first ones in this order. Otherwise the last
   * row read: `maxScan` rows were read without keeping `want`, and rows after it were not looked at.
   */
  cutAt: ArtifactDoc | null;
}

/** What a result row needs: the document less its content and search fields (a content may be megabytes). */
const listProjection = { content: 0, search: 0, search_text: 0 } as const;

/** Each order as a sort the indexes serve (store/view-indexes.ts), `_id` breaking ties: one total order. */
export const orderSorts: Record<StoredOrder, Sort & Record<string, 1 | -1>> = {
  updated_desc: { 'provenance.updated_at': -1, _id: -1 },
  created_desc: { _id: -1 }, // UUIDv7: creation order (container_recent, read backwards)
  title_asc: { title: 1, _id: 1 },
  position: { order_key: 1 }, // unique within a container (order_unique)
};

export class ViewQueryStore {
  constructor(private readonly db: Db) {}

  private get artifacts() {
    return this.db.collection<ArtifactDoc>('artifacts');
  }

  /** The first `want` rows of the container in `order` that `keep` keeps, reading at most `maxScan`. */
  async first(q: ContainerQuery): Promise<ContainerRows> {
    // Each read starts over with a larger limit: a cursor on a compound order key would need an `$or`
    // that the embedded store plans badly, and re-reading at most doubles the rows read in all.
    const bound = q.maxScan ?? maxScan;
    for (let read = Math.min(Math.max(q.firstRead, q.want), bound); ; read = Math.min(read * growth, bound)) {
      const docs = await this.artifacts
        .find({ collection_id: q.containerId }, { projection: listProjection })
        .sort(orderSorts[q.order])
        .limit(read)
        .toArray();
      const rows = docs.filter(q.keep);
      if (rows.length >= q.want || docs.length < read) return { rows: rows.slice(0, q.want), cutAt: null };
      if (read >= bound) return { rows, cutAt: docs.at(-1)! };
    }
  }

  /** Artifacts by id (a search's hits), without their content; the missing ones left out. */
  byIds(ids: string[]): Promise<ArtifactDoc[]> {
    return findByIds(this.artifacts, ids, { projection: listProjection });
  }
}
