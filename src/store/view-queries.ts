import type { Db, Filter, Sort } from 'mongodb';
import type { ArtifactDoc } from './artifact-doc.js';
import { findByIds } from './by-id.js';

/**
 * The store reads behind a view's results (issue #36): the first artifacts of ONE container in the
 * view's order that a filter keeps. The query holds the container and the order only, so that both
 * engines answer it with an ordered scan of an index that leads with `collection_id` (below), stopping
 * at the LIMIT: a filter in the query (a pattern on the type, a tag, a context field, "not archived")
 * has no statistics on the embedded PostgreSQL store, which then guesses it keeps a handful of rows
 * and reads and sorts the whole container instead (measured: test/views/view-plans.test.ts). The
 * filter runs here, on each row read, and reading goes on page after page (each after the last row
 * read) until enough rows are kept, the container is read to its end, or `maxScan` rows were read.
 * What a view costs follows its sources, its limit and how much its filter keeps, never what other
 * containers hold.
 */

/** The orders a view reads in the store (relevance comes from search, not from here). */
export type StoredOrder = 'updated_desc' | 'created_desc' | 'title_asc' | 'position';

/** Rows read from one container at most, for one evaluation. */
export const maxScan = 4000;
/** Rows one read asks for at most. */
const pageRows = 200;

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

/**
 * The rows after `last` in `order`: a range on the order's leading key, which the index serves, and
 * for a key that is not unique (an update time, a title) the rows tied with `last` whose id comes
 * after its id (a filter on the range's first rows: the `$or` is never what the index scans).
 */
function afterRow(order: StoredOrder, last: ArtifactDoc): Filter<ArtifactDoc> {
  switch (order) {
    case 'position':
      return { order_key: { $gt: last.order_key } };
    case 'created_desc':
      return { _id: { $lt: last._id } };
    case 'updated_desc': {
      const at = last.provenance.updated_at;
      return {
        $and: [{ 'provenance.updated_at': { $lte: at } }, { $or: [{ 'provenance.updated_at': { $lt: at } }, { _id: { $lt: last._id } }] }],
      } as Filter<ArtifactDoc>;
    }
    case 'title_asc':
      return { $and: [{ title: { $gte: last.title } }, { $or: [{ title: { $gt: last.title } }, { _id: { $gt: last._id } }] }] };
  }
}

/** Rows to read next: what is still wanted, at the share of rows kept so far (with some room), within the bounds. */
function nextPage(needed: number, keptShare: number, left: number): number {
  const estimate = keptShare > 0 ? Math.ceil((needed / keptShare) * 1.2) + 1 : pageRows;
  return Math.max(1, Math.min(estimate, pageRows, left));
}

export class ViewQueryStore {
  constructor(private readonly db: Db) {}

  private get artifacts() {
    return this.db.collection<ArtifactDoc>('artifacts');
  }

  /** The first `want` rows of the container in `order` that `keep` keeps, reading at most `maxScan`. */
  async first(q: ContainerQuery): Promise<ContainerRows> {
    const bound = q.maxScan ?? maxScan;
    const rows: ArtifactDoc[] = [];
    let scanned = 0;
    let last: ArtifactDoc | null = null;
    // Page after page, each after the last row read (afterRow), each at most `pageRows` (one statement
    // on the embedded store, which reads a longer result twice: a probe, then a server-side cursor).
    for (
      let page = Math.min(Math.max(q.firstRead, q.want), pageRows, bound);
      ;
      page = nextPage(q.want - rows.length, rows.length / scanned, bound - scanned)
    ) {
      const docs = await this.artifacts
        .find(last ? { $and: [{ collection_id: q.containerId }, afterRow(q.order, last)] } : { collection_id: q.containerId }, {
          projection: listProjection,
        })
        .sort(orderSorts[q.order])
        .limit(page)
        .toArray();
      scanned += docs.length;
      for (const doc of docs) if (q.keep(doc)) rows.push(doc);
      if (rows.length >= q.want || docs.length < page) return { rows: rows.slice(0, q.want), cutAt: null };
      last = docs.at(-1)!;
      if (scanned >= bound) return { rows, cutAt: last };
    }
  }

  /**
   * The most recently updated artifact of a container, as `<updated_at>/<id>` ('' when empty): what
   * moves when a commit lands in a collection (collections record no events). One row of the
   * `container_updated` index.
   */
  async newestIn(containerId: string): Promise<string> {
    const [doc] = await this.artifacts
      .find({ collection_id: containerId }, { projection: { _id: 1, 'provenance.updated_at': 1 } })
      .sort(orderSorts.updated_desc)
      .limit(1)
      .toArray();
    return doc ? `${doc.provenance.updated_at.toISOString()}/${doc._id}` : '';
  }

  /** Artifacts by id (a search's hits), without their content; the missing ones left out. */
  byIds(ids: string[]): Promise<ArtifactDoc[]> {
    return findByIds(this.artifacts, ids, { projection: listProjection });
  }
}
