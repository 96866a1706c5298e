import { generateKeyBetween } from 'fractional-indexing';
import type { Db, Filter, Sort } from 'mongodb';
import { v7 as uuidv7 } from 'uuid';
import type { Principal } from '../auth/principal.js';
import { isDuplicateKey } from './mongo.js';
import type { ContainerKind } from './containers.js';
import { decodeCursor, encodeCursor, type Page } from './pagination.js';

export interface Provenance {
  created_by: string;
  created_at: Date;
  updated_by: string;
  updated_at: Date;
  /** Where the content came from: the channel and, when known, the request or artifact behind it. */
  source: { kind: 'api' | 'mcp' | 'agent' | 'commit'; request_id?: string; derived_from?: string };
}

export interface ArtifactDoc {
  _id: string;
  title: string;
  content_type: string;
  content: string;
  context: Record<string, unknown>;
  collection_id: string;
  container_kind: ContainerKind;
  /** Lexicographic base-62 fractional index key: artifacts of a container sort by it. */
  order_key: string;
  /** Incremented on every update of a draft. */
  revision: number;
  provenance: Provenance;
}

export interface NewArtifact {
  title: string;
  content_type: string;
  content: string;
  context: Record<string, unknown>;
  collection_id: string;
  container_kind: ContainerKind;
  source: Provenance['source'];
}

export type ArtifactPatch = Partial<Pick<ArtifactDoc, 'title' | 'content_type' | 'content' | 'context'>>;

const keyRetries = 5;

/** Artifact persistence. Callers have already checked the principal may use the container. */
export class ArtifactStore {
  constructor(private readonly db: Db) {}

  private get artifacts() {
    return this.db.collection<ArtifactDoc>('artifacts');
  }

  /** Appends at the end of the container; a concurrent append that took the same key makes us retry. */
  async create(principal: Principal, input: NewArtifact): Promise<ArtifactDoc> {
    const now = new Date();
    for (let attempt = 0; ; attempt++) {
      const last = await this.artifacts.find({ collection_id: input.collection_id }, { projection: { order_key: 1 } }).sort({ order_key: -1 }).limit(1).next();
      const { source, ...fields } = input;
      const doc: ArtifactDoc = {
        _id: uuidv7(),
        ...fields,
        order_key: generateKeyBetween(last?.order_key ?? null, null),
        revision: 1,
        provenance: { created_by: principal.subject, created_at: now, updated_by: principal.subject, updated_at: now, source },
      };
      try {
        await this.artifacts.insertOne(doc);
        return doc;
      } catch (err) {
        if (!isDuplicateKey(err) || attempt >= keyRetries) throw err;
      }
    }
  }

  get(id: string): Promise<ArtifactDoc | null> {
    return this.artifacts.findOne({ _id: id });
  }

  async list(collectionIds: string[], contentType: string | undefined, limit: number, cursor?: string): Promise<Page<ArtifactDoc>> {
    // Within one container the order is the fractional index; across containers, creation order (UUIDv7).
    const single = collectionIds.length === 1;
    const filter: Filter<ArtifactDoc>[] = [{ collection_id: { $in: collectionIds } }];
    if (contentType) filter.push({ content_type: contentType });
    if (cursor && single) {
      const [key, id] = decodeCursor(cursor, 2) as [string, string];
      filter.push({ $or: [{ order_key: { $gt: key } }, { order_key: key, _id: { $gt: id } }] });
    } else if (cursor) {
      filter.push({ _id: { $gt: decodeCursor(cursor, 1)[0]! } });
    }
    const sort: Sort = single ? { order_key: 1, _id: 1 } : { _id: 1 };
    const docs = await this.artifacts.find({ $and: filter }).sort(sort).limit(limit + 1).toArray();
    const items = docs.slice(0, limit);
    const last = items.at(-1);
    const next = docs.length > limit && last ? encodeCursor(single ? [last.order_key, last._id] : [last._id]) : null;
    return { items, next_cursor: next };
  }

  update(principal: Principal, id: string, patch: ArtifactPatch, source: Provenance['source']): Promise<ArtifactDoc | null> {
    return this.artifacts.findOneAndUpdate(
      { _id: id },
      {
        $set: { ...patch, 'provenance.updated_by': principal.subject, 'provenance.updated_at': new Date(), 'provenance.source': source },
        $inc: { revision: 1 },
      },
      { returnDocument: 'after' },
    );
  }

  /**
   * Moves an artifact directly after `afterId` (or to the front when null), by giving it a key
   * between its new neighbours. Returns null when the anchor is not in the same container.
   */
  async move(doc: ArtifactDoc, afterId: string | null): Promise<ArtifactDoc | null> {
    let lower: string | null = null;
    if (afterId) {
      const anchor = await this.artifacts.findOne({ _id: afterId, collection_id: doc.collection_id });
      if (!anchor) return null;
      lower = anchor.order_key;
    }
    const next = await this.artifacts
      .find({ collection_id: doc.collection_id, _id: { $ne: doc._id }, ...(lower ? { order_key: { $gt: lower } } : {}) })
      .sort({ order_key: 1 })
      .limit(1)
      .next();
    const key = generateKeyBetween(lower, next?.order_key ?? null);
    return this.artifacts.findOneAndUpdate({ _id: doc._id }, { $set: { order_key: key } }, { returnDocument: 'after' });
  }

  async delete(id: string): Promise<boolean> {
    return (await this.artifacts.deleteOne({ _id: id })).deletedCount === 1;
  }
}
