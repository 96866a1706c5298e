import type { Db, Filter, Sort } from 'mongodb';
import type { ArtifactDoc } from './artifact-doc.js';
import { contentTypeMatch } from './artifacts.js';
import { findByIds } from './by-id.js';

/**
 * The store reads behind a view's results (issue #36): the first artifacts of ONE container that match
 * a view's filter, in the view's order, read through an index that leads with `collection_id` and
 * goes on in that order, so a read stops after `limit` rows that match. What a view costs follows its
 * sources and its limit, never how many artifacts everyone else has (operations/views.ts merges them).
 */

/** The orders a view reads in the store (relevance comes from search, not from here). */
export type StoredOrder = 'updated_desc' | 'created_desc' | 'title_asc' | 'position';

export interface ContainerQuery {
  containerId: string;
  /** Content-type patterns the view asks for (`text/markdown`, `image/*`); null: any. */
  contentTypes: string[] | null;
  /** Content-type patterns the caller's scopes allow; null: any. */
  typeLimits: string[] | null;
  /** Each one in `context.tags` (see tagsMatch). */
  tags: string[];
  /** `context.<field>` equal to the value; names are checked identifiers (artifacts/content-types/view.ts). */
  context: Record<string, string | number | boolean>;
  order: StoredOrder;
  limit: number;
}

/** What a result row needs: the document less its content and search fields (a content may be megabytes). */
const listProjection = { content: 0, search: 0, search_text: 0 } as const;

/** Each order as a sort the indexes below serve, with `_id` breaking ties (one total order to merge by). */
export const orderSorts: Record<StoredOrder, Sort & Record<string, 1 | -1>> = {
  updated_desc: { 'provenance.updated_at': -1, _id: -1 },
  created_desc: { _id: -1 }, // UUIDv7: creation order (container_recent, read backwards)
  title_asc: { title: 1, _id: 1 },
  position: { order_key: 1 }, // unique within a container (order_unique)
};

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A tag in `context.tags` as one query both engines answer alike. MongoDB matches a pattern against
 * each element of an array; the embedded PostgreSQL store matches it against the field's JSON text
 * (`["a", "b"]`). `(^|")tag($|")` finds the tag either way: alone, or quoted in the array's text.
 * Tags hold no quote or backslash (the view schema's alphabet), so the quotes mark a whole element.
 * The query may still let through a value that is no tag (a tag inside an object there): tagsMatch
 * then decides on the document itself.
 */
function tagCondition(tag: string): Filter<ArtifactDoc> {
  return { 'context.tags': { $regex: `(^|")${escapeRegex(tag)}($|")` } } as Filter<ArtifactDoc>;
}

/** Whether the artifact carries every tag: `context.tags` an array of strings holding each (or, alone, the one string). */
export function tagsMatch(doc: Pick<ArtifactDoc, 'context'>, tags: string[]): boolean {
  if (tags.length === 0) return true;
  const held = doc.context?.tags;
  const list = Array.isArray(held) ? held.filter((t): t is string => typeof t === 'string') : typeof held === 'string' ? [held] : [];
  return tags.every((t) => list.includes(t));
}

function filterOf(q: ContainerQuery): Filter<ArtifactDoc> {
  const parts: Filter<ArtifactDoc>[] = [{ collection_id: q.containerId }, { archived_at: { $exists: false } }];
  if (q.contentTypes) parts.push({ $or: q.contentTypes.map(contentTypeMatch) });
  if (q.typeLimits) parts.push(q.typeLimits.length ? { $or: q.typeLimits.map(contentTypeMatch) } : { _id: { $in: [] } });
  for (const tag of q.tags) parts.push(tagCondition(tag));
  for (const [field, value] of Object.entries(q.context)) parts.push({ [`context.${field}`]: value } as Filter<ArtifactDoc>);
  return { $and: parts };
}

export class ViewQueryStore {
  constructor(private readonly db: Db) {}

  /**
   * The first `limit` artifacts of the container that match, in the view's order, without their
   * content. One indexed read, bounded by `limit`.
   */
  async first(q: ContainerQuery): Promise<ArtifactDoc[]> {
    const docs = await this.db
      .collection<ArtifactDoc>('artifacts')
      .find(filterOf(q), { projection: listProjection })
      .sort(orderSorts[q.order])
      .limit(q.limit)
      .toArray();
    return docs.filter((d) => tagsMatch(d, q.tags));
  }

  /** Artifacts by id (a search's hits), without their content; the missing ones left out. */
  byIds(ids: string[]): Promise<ArtifactDoc[]> {
    return findByIds(this.db.collection<ArtifactDoc>('artifacts'), ids, { projection: listProjection });
  }
}
