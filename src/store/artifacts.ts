import { randomInt } from 'node:crypto';
import { generateKeyBetween } from 'fractional-indexing';
import type { Binary, Db, Filter, Sort } from 'mongodb';
import { v7 as uuidv7 } from 'uuid';
import type { Principal } from '../auth/principal.js';
import { KeyedLock } from './keyed-lock.js';
import { isDuplicateKey } from './mongo.js';
import { containerCollection, type ContainerDoc, type ContainerKind } from './containers.js';
import { decodeCursor, encodeCursor, type Page } from './pagination.js';
import { initialVersion, versionsCollection } from './versions.js';

export interface Provenance {
  created_by: string;
  created_at: Date;
  updated_by: string;
  updated_at: Date;
  /** Where the content came from: the channel and, when known, the request or artifact behind it. */
  source: {
    kind: 'api' | 'mcp' | 'agent' | 'commit';
    request_id?: string;
    /** For a change an agent proposed: the invocation that applied it, the action, and the agent. */
    invocation_id?: string;
    action_id?: string;
    agent?: string;
    derived_from?: string;
    /** For a collection artifact: the commit that wrote this version, and who approved it. */
    commit_id?: string;
    approved_by?: string;
    /** The credential that made the change when it was not the person's own token. */
    via?: { kind: 'server_credential' | 'api_key'; id: string };
  };
}

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A content-type pattern (`text/markdown`, `text/*`, `*`) as a query on the stored content_type. */
export function contentTypeMatch(pattern: string): Filter<ArtifactDoc> {
  if (pattern === '*' || pattern === '*/*') return {};
  if (pattern.endsWith('/*')) return { content_type: { $regex: `^${escapeRegex(pattern.slice(0, -1))}`, $options: 'i' } };
  return { content_type: { $regex: `^${escapeRegex(pattern)}\\s*(;|$)`, $options: 'i' } };
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
  /** Incremented on every update of a draft; for a collection artifact, equal to its version. */
  revision: number;
  /** Collection artifacts only: the current version (earlier ones are in artifact_versions). */
  version?: number;
  /** Workspace drafts only: set while archived (hidden from search and from a commit's default selection). */
  archived_at?: Date;
  provenance: Provenance;
  /**
   * Collection artifacts of a type whose content-type server implements `extract_text` (§4.6): the
   * plain text it returned for this version, which search indexes instead of the raw content.
   */
  search_text?: { revision: number; text: string };
  /**
   * Whose stored secrets the content references: the person who last wrote the content (each such
   * write checks that they own them). Unset until the content is first changed: then the creator.
   */
  secrets_owner?: string;
  /**
   * The embedding of this revision's text, written by the indexing activity. The vector is BSON
   * binary (float32, subtype 9), which Atlas Vector Search indexes and FerretDB reads ten times faster
   * than an array of doubles (docs/decisions.md); older documents may still hold a number array.
   */
  search?: { embedder: string; content_hash: string; vector: Binary | number[]; revision: number; embedded_at: Date };
}

/** Names of the artifact lifecycle states (docs/decisions.md). */
export type ArtifactState = 'draft' | 'archived' | 'committed';

export function stateOf(doc: Pick<ArtifactDoc, 'container_kind' | 'archived_at'>): ArtifactState {
  if (doc.container_kind === 'collection') return 'committed';
  return doc.archived_at ? 'archived' : 'draft';
}

export interface NewArtifact {
  title: string;
  content_type: string;
  content: string;
  context: Record<string, unknown>;
  source: Provenance['source'];
  /** A fixed id, for a create that must happen once however often it is retried: an existing id is returned as is. */
  id?: string;
}

export type ArtifactPatch = Partial<Pick<ArtifactDoc, 'title' | 'content_type' | 'content' | 'context' | 'secrets_owner'>>;

const keyRetries = 5;
const base62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * A key after `last`, with a short random fraction appended so that concurrent appends that read the
 * same `last` still get distinct keys (a fraction may not end in '0').
 */
export function appendKey(last: string | null): string {
  const jitter = Array.from({ length: 3 }, (_, i) => base62[i === 2 ? randomInt(1, 62) : randomInt(0, 62)]).join('');
  return generateKeyBetween(last, null) + jitter;
}

/** Artifact persistence. Callers have already checked the principal may use the container. */
export class ArtifactStore {
  private readonly lock = new KeyedLock();

  constructor(private readonly db: Db) {}

  private get artifacts() {
    return this.db.collection<ArtifactDoc>('artifacts');
  }

  /**
   * Appends at the end of the container, after the container's last handed-out key (no sort over its
   * artifacts). A key collision, vanishingly rare with the jitter, is retried with a fresh key.
   */
  async create(principal: Principal, container: ContainerDoc, input: NewArtifact): Promise<ArtifactDoc> {
    const now = new Date();
    const { source, id, ...fields } = input;
    for (let attempt = 0; ; attempt++) {
      const doc: ArtifactDoc = {
        _id: id ?? uuidv7(),
        ...fields,
        collection_id: container._id,
        container_kind: container.kind,
        order_key: appendKey(container.last_order_key),
        revision: 1,
        ...(container.kind === 'collection' ? { version: 1 } : {}),
        provenance: { created_by: principal.subject, created_at: now, updated_by: principal.subject, updated_at: now, source },
      };
      try {
        await this.artifacts.insertOne(doc);
        await this.raiseLastKey(doc);
        if (container.kind === 'collection') await versionsCollection(this.db).insertOne(initialVersion(doc));
        return doc;
      } catch (err) {
        const existing = id && isDuplicateKey(err) ? await this.get(id) : null;
        if (existing) return existing;
        if (!isDuplicateKey(err) || attempt >= keyRetries) throw err;
      }
    }
  }

  /** Records the artifact's key as the container's last, unless a higher one is already there. */
  private async raiseLastKey(doc: ArtifactDoc): Promise<void> {
    await containerCollection(this.db, doc.container_kind).updateOne(
      { _id: doc.collection_id, $or: [{ last_order_key: null }, { last_order_key: { $lt: doc.order_key } }] },
      { $set: { last_order_key: doc.order_key } },
    );
  }

  get(id: string): Promise<ArtifactDoc | null> {
    return this.artifacts.findOne({ _id: id });
  }

  getMany(ids: string[]): Promise<ArtifactDoc[]> {
    return ids.length ? this.artifacts.find({ _id: { $in: ids } }).toArray() : Promise.resolve([]);
  }

  /**
   * Artifacts of the given containers. `typeLimits` (content-type patterns from fine-grained scopes,
   * such as `text/*`) narrows the result to what the principal may read.
   */
  async list(collectionIds: string[], types: { contentType?: string; typeLimits: string[] | null }, limit: number, cursor?: string): Promise<Page<ArtifactDoc>> {
    // Within one container the order is the fractional index; across containers, creation order (UUIDv7).
    const single = collectionIds.length === 1;
    const filter: Filter<ArtifactDoc>[] = [{ collection_id: { $in: collectionIds } }];
    if (types.contentType) filter.push({ content_type: types.contentType });
    if (types.typeLimits) filter.push(types.typeLimits.length ? { $or: types.typeLimits.map(contentTypeMatch) } : { _id: { $in: [] } });
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

  /**
   * The drafts a commit takes from a workspace, in workspace order: the named ones, or every draft
   * that is not archived.
   */
  drafts(workspaceId: string, ids: string[] | null): Promise<ArtifactDoc[]> {
    const filter: Filter<ArtifactDoc> = ids ? { collection_id: workspaceId, _id: { $in: ids } } : { collection_id: workspaceId, archived_at: { $exists: false } };
    return this.artifacts.find(filter).sort({ order_key: 1, _id: 1 }).toArray();
  }

  /** Serialised per artifact in process, so concurrent edits each get their own revision (see KeyedLock). */
  update(principal: Principal, id: string, patch: ArtifactPatch, source: Provenance['source']): Promise<ArtifactDoc | null> {
    return this.change(principal, id, { $set: patch }, source);
  }

  /** Archives (hides from search and from a commit's default selection) or restores a draft. */
  setArchived(principal: Principal, id: string, archived: boolean, source: Provenance['source']): Promise<ArtifactDoc | null> {
    return this.change(principal, id, archived ? { $set: { archived_at: new Date() } } : { $unset: { archived_at: '' } }, source);
  }

  private change(principal: Principal, id: string, change: { $set?: Partial<ArtifactDoc>; $unset?: Record<string, ''> }, source: Provenance['source']) {
    return this.lock.run(id, () =>
      this.artifacts.findOneAndUpdate(
        { _id: id },
        {
          ...change,
          $set: { ...change.$set, 'provenance.updated_by': principal.subject, 'provenance.updated_at': new Date(), 'provenance.source': source },
          $inc: { revision: 1 },
        },
        { returnDocument: 'after' },
      ),
    );
  }

  /** Records the extracted search text of a collection artifact's current version. */
  async setSearchText(id: string, revision: number, text: string): Promise<ArtifactDoc | null> {
    return this.artifacts.findOneAndUpdate({ _id: id, revision }, { $set: { search_text: { revision, text } }, $unset: { search: '' } }, { returnDocument: 'after' });
  }

  /**
   * Sets context keys of a draft without touching its revision or provenance: a content-type
   * server's `on_create` enrichment (§4.6), which is not an edit by anyone.
   */
  async mergeContext(id: string, context: Record<string, unknown>): Promise<boolean> {
    const keys = Object.entries(context).filter(([k]) => /^[A-Za-z0-9_-]{1,100}$/.test(k));
    if (keys.length === 0) return false;
    const set = Object.fromEntries(keys.map(([k, v]) => [`context.${k}`, v]));
    const r = await this.lock.run(id, () => this.artifacts.updateOne({ _id: id, container_kind: 'workspace' }, { $set: set }));
    return r.matchedCount === 1;
  }

  /**
   * Moves an artifact directly after `afterId` (or to the front when null), by giving it a key
   * between its new neighbours. Returns null when the anchor is not in the same container.
   */
  async move(doc: ArtifactDoc, afterId: string | null): Promise<ArtifactDoc | null> {
    // A concurrent move between the same neighbours takes the same key: read them again and retry.
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.moveOnce(doc, afterId);
      } catch (err) {
        if (!isDuplicateKey(err) || attempt >= keyRetries) throw err;
      }
    }
  }

  private async moveOnce(doc: ArtifactDoc, afterId: string | null): Promise<ArtifactDoc | null> {
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
    const moved = await this.artifacts.findOneAndUpdate({ _id: doc._id }, { $set: { order_key: key } }, { returnDocument: 'after' });
    if (moved) await this.raiseLastKey(moved);
    return moved;
  }

  /** Stores an embedding, unless the artifact has moved on to another revision meanwhile. */
  async storeEmbedding(id: string, revision: number, search: NonNullable<ArtifactDoc['search']>): Promise<boolean> {
    const res = await this.artifacts.updateOne({ _id: id, revision }, { $set: { search } });
    return res.modifiedCount === 1;
  }

  /** Every artifact, streamed: the search index is rebuilt from this at start. */
  all(): AsyncIterable<ArtifactDoc> {
    return this.artifacts.find({});
  }

  async delete(id: string, revision?: number): Promise<boolean> {
    return (await this.artifacts.deleteOne({ _id: id, ...(revision !== undefined ? { revision } : {}) })).deletedCount === 1;
  }

  /**
   * Changes a draft only if it is still at `revision` (an agent's proposal was made against it); null
   * when it has moved on, been archived or gone. Context keys are set one by one: other keys stay.
   */
  updateAt(principal: Principal, id: string, revision: number, patch: { title?: string; content?: string; context?: Record<string, unknown> }, source: Provenance['source']): Promise<ArtifactDoc | null> {
    const { context, ...fields } = patch;
    const set = { ...fields, ...Object.fromEntries(Object.entries(context ?? {}).map(([k, v]) => [`context.${k}`, v])) };
    return this.lock.run(id, () =>
      this.artifacts.findOneAndUpdate(
        { _id: id, revision, container_kind: 'workspace', archived_at: { $exists: false } },
        { $set: { ...set, 'provenance.updated_by': principal.subject, 'provenance.updated_at': new Date(), 'provenance.source': source }, $inc: { revision: 1 } },
        { returnDocument: 'after' },
      ),
    );
  }
}
