import { randomInt } from 'node:crypto';
import { generateKeyBetween } from 'fractional-indexing';
import type { Db, Filter } from 'mongodb';
import { v7 as uuidv7 } from 'uuid';
import type { Principal } from '../identity/principal.js';
import { KeyedLock } from './keyed-lock.js';
import { isDuplicateKey } from './mongo.js';
import type { ContainerDoc } from './containers.js';
import { decodeCursor, encodeCursor, type Page } from './pagination.js';
import {
  atRevision,
  claimWithOutboxEvent,
  revisionId,
  revisionsCollection,
  revisionState,
  type RevisionDoc,
  type RevisionState,
  type WriteCause,
} from './revisions.js';
import { initialVersion, versionsCollection } from './versions.js';
import type { ArtifactDoc, Provenance } from './artifact-doc.js';
import { findByIds, inParallelSlices } from './by-id.js';

export type { ArtifactDoc, Provenance } from './artifact-doc.js';

/**
 * A conditional write found the draft at another revision than expected (`current`; null when it is
 * gone): REST answers 412, an agent's action `conflict`.
 */
export class RevisionMismatch extends Error {
  constructor(readonly current: number | null) {
    super(current === null ? 'the artifact is gone' : `the artifact is at revision ${current}`);
  }
}

/** How many times a blind edit that lost its revision to another writer claims the next one. */
const claimRetries = 100;
/** How many claims a settle rolls the document forward over before it gives up (a runaway loop). */
const settleRounds = 1000;

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A content-type pattern (`text/markdown`, `text/*`, `*`) as a query on the stored content_type. */
export function contentTypeMatch(pattern: string): Filter<ArtifactDoc> {
  if (pattern === '*' || pattern === '*/*') return {};
  if (pattern.endsWith('/*')) return { content_type: { $regex: `^${escapeRegex(pattern.slice(0, -1))}`, $options: 'i' } };
  return { content_type: { $regex: `^${escapeRegex(pattern)}\\s*(;|$)`, $options: 'i' } };
}

/** The fields an update event names: the patch's, less the bookkeeping ones (whose secrets the content references). */
const changedFields = (patch: object) => Object.keys(patch).filter((k) => k !== 'secrets_owner');

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
/** Containers a list across containers reads one by one (ArtifactStore.acrossContainers). */
const fanOutContainers = 100;
const base62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * The clock's key for `ms`: an integer key of head 'h' and the time in milliseconds as 8 base62 digits
 * (good until the year 8888). Every key counted up from the first one ('a0', 'a1', … up to head 'g')
 * sorts before it.
 */
export function clockKey(ms: number): string {
  let digits = '';
  for (let n = Math.floor(ms); digits.length < 8; n = Math.floor(n / 62)) digits = base62[n % 62] + digits;
  return `h${digits}`;
}

/**
 * A key at the end of a container: the clock's key, or after `last` when `last` is not before the
 * clock (a batch of appends in one millisecond, or a clock behind another node's). A short random
 * fraction is appended, so that appends in the same millisecond still get distinct keys (a fraction
 * may not end in '0'). Appends need no read of the container's last key: one that is stale or absent
 * still gives a key after every earlier append (docs/decisions.md).
 */
export function appendKey(last: string | null, now = Date.now()): string {
  const clock = clockKey(now);
  const jitter = Array.from({ length: 3 }, (_, i) => base62[i === 2 ? randomInt(1, 62) : randomInt(0, 62)]).join('');
  return (last !== null && last >= clock ? generateKeyBetween(last, null) : clock) + jitter;
}

/** Artifact persistence. Callers have already checked the principal may use the container. */
export class ArtifactStore {
  private readonly lock = new KeyedLock();

  constructor(private readonly db: Db) {}

  private get artifacts() {
    return this.db.collection<ArtifactDoc>('artifacts');
  }

  /**
   * Appends at the end of the container, at the clock's key (appendKey: no sort over its artifacts,
   * and no write to the container). A key collision, vanishingly rare with the jitter, is retried
   * with a fresh key.
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
      const cause: WriteCause = { kind: 'artifact_created', actor: principal.subject, source };
      try {
        await this.artifacts.insertOne(doc);
      } catch (err) {
        const existing = id && isDuplicateKey(err) ? await this.get(id) : null;
        if (existing) {
          // A retried create (an activity run again after its worker died): what followed the insert
          // may not have happened, and must, or the draft would have no history and no event (a kill
          // test lost one event in 200 this way). Each step is idempotent.
          await this.recordCreation(existing, cause);
          return existing;
        }
        if (!isDuplicateKey(err) || attempt >= keyRetries) throw err;
        continue;
      }
      await this.recordCreation(doc, cause);
      return doc;
    }
  }

  /**
   * What follows a new artifact's insert, each step safe to run again: a draft's first revision claim
   * with its artifact_created event (only while the draft is still at revision 1: a later revision's
   * state is not the first one's), a collection artifact's version 1 (only while it is at version 1).
   */
  private async recordCreation(doc: ArtifactDoc, cause: WriteCause): Promise<void> {
    if (doc.container_kind === 'workspace' && doc.revision === 1) await this.claimFirst(doc, cause);
    if (doc.container_kind === 'collection' && (doc.version ?? 1) === 1) {
      try {
        await versionsCollection(this.db).insertOne(initialVersion(doc));
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
      }
    }
  }

  /**
   * The stored document as it is: for a draft, possibly behind its latest revision claim (a write on
   * its way, or a late write that moved it back). Writers settle before they claim; what a reader is
   * answered comes from current().
   */
  get(id: string): Promise<ArtifactDoc | null> {
    return this.artifacts.findOne({ _id: id });
  }

  /**
   * An artifact as every acknowledged write left it: a draft as its latest revision claim has it
   * (latest: one more primary-key read when it is current), worked out in memory. Reads never write:
   * on the embedded engine an update is a whole-document write that is not atomic, so a reader's
   * late repair could itself move the document back for the readers that do not settle (lists,
   * search); repairing the stored document is left to writers, who settle after every write. Null
   * when the artifact is gone, or its latest claim deleted it (issue #30).
   */
  async current(id: string): Promise<ArtifactDoc | null> {
    const doc = await this.get(id);
    return doc && this.latest(doc);
  }

  /**
   * current() of several artifacts, in the order of `ids`: one primary-key read of each (never `$in`,
   * see by-id.ts) and one of each draft's next claim. Missing ones and drafts a claim deleted are
   * left out.
   */
  async currentMany(ids: string[]): Promise<ArtifactDoc[]> {
    return this.latestOf(await findByIds(this.artifacts, ids));
  }

  /** Drafts already read, each as its latest claim has it (latest), in the same order; those a claim deleted are left out. */
  async latestOf(docs: ArtifactDoc[]): Promise<ArtifactDoc[]> {
    return (await inParallelSlices(docs, (d) => this.latest(d))).filter((d): d is ArtifactDoc => d !== null);
  }

  /**
   * The artifact as its latest revision claim has it, without writing: the claims after the stored
   * revision are read by `_id`, one after the other (only the one at revision+1 when the draft is
   * current), and laid over the document (what they do not record, the order key and embedding,
   * stays the document's). Null when a claim deleted it. Collection artifacts have no claims.
   */
  private async latest(doc: ArtifactDoc): Promise<ArtifactDoc | null> {
    if (doc.container_kind !== 'workspace') return doc;
    let at = doc;
    for (let round = 0; ; round++) {
      const claim = await this.revisionAt(doc._id, at.revision + 1);
      if (!claim) return at;
      if (!claim.state) return null;
      if (round >= settleRounds) throw new Error(`artifact ${doc._id}: still behind its revision claims after ${settleRounds} rounds`);
      at = atRevision(at, claim.revision, claim.state);
    }
  }

  getMany(ids: string[]): Promise<ArtifactDoc[]> {
    return findByIds(this.artifacts, ids);
  }

  /**
   * Artifacts of the given containers. `typeLimits` (content-type patterns from fine-grained scopes,
   * such as `text/*`) narrows the result to what the principal may read.
   */
  async list(
    collectionIds: string[],
    types: { contentType?: string; typeLimits: string[] | null },
    limit: number,
    cursor?: string,
  ): Promise<Page<ArtifactDoc>> {
    // Within one container the order is the fractional index; across containers, creation order (UUIDv7).
    const single = collectionIds.length === 1;
    const filter: Filter<ArtifactDoc>[] = [];
    if (types.contentType) filter.push({ content_type: types.contentType });
    if (types.typeLimits) filter.push(types.typeLimits.length ? { $or: types.typeLimits.map(contentTypeMatch) } : { _id: { $in: [] } });
    let docs: ArtifactDoc[];
    if (single) {
      // Order keys are unique within a container (order_unique), so the key alone places the cursor:
      // one range of the index, however deep the page (an `$or` on key and id read every earlier row).
      // The cursor still carries the id, so cursors issued before stay valid.
      if (cursor) filter.push({ order_key: { $gt: decodeCursor(cursor, 2)[0]! } });
      docs = await this.artifacts
        .find({ $and: [{ collection_id: collectionIds[0]! }, ...filter] })
        .sort({ order_key: 1 })
        .limit(limit + 1)
        .toArray();
    } else {
      if (cursor) filter.push({ _id: { $gt: decodeCursor(cursor, 1)[0]! } });
      docs = await this.acrossContainers(collectionIds, filter, limit + 1);
    }
    const items = docs.slice(0, limit);
    const last = items.at(-1);
    const next = docs.length > limit && last ? encodeCursor(single ? [last.order_key, last._id] : [last._id]) : null;
    return { items, next_cursor: next };
  }

  /**
   * The first `n` artifacts of several containers matching `filter`, in `_id` order. Up to
   * `fanOutContainers` containers, one query each (by the indexes that lead with `collection_id` and
   * end with `_id`: `container_recent`, or `workspace_type` with a content type), read at most `n`
   * each and merged here: the cost follows the page and the number of containers, never what they
   * hold. (MongoDB merges an `$in` this way itself; PostgreSQL reads every matching row of every
   * container and sorts them.) Beyond that, one `$in` query, bounded by what the containers hold.
   */
  private async acrossContainers(collectionIds: string[], filter: Filter<ArtifactDoc>[], n: number): Promise<ArtifactDoc[]> {
    const byId = (a: ArtifactDoc, b: ArtifactDoc) => (a._id < b._id ? -1 : a._id > b._id ? 1 : 0);
    if (collectionIds.length > fanOutContainers) {
      return this.artifacts
        .find({ $and: [{ collection_id: { $in: collectionIds } }, ...filter] })
        .sort({ _id: 1 })
        .limit(n)
        .toArray();
    }
    const pages = await inParallelSlices([...new Set(collectionIds)], (id) =>
      this.artifacts
        .find({ $and: [{ collection_id: id }, ...filter] })
        .sort({ _id: 1 })
        .limit(n)
        .toArray(),
    );
    return pages.flat().sort(byId).slice(0, n);
  }

  /**
   * The drafts a commit takes from a workspace, in workspace order: the named ones, or every draft
   * that is not archived.
   */
  async drafts(workspaceId: string, ids: string[] | null): Promise<ArtifactDoc[]> {
    if (!ids)
      return this.artifacts
        .find({ collection_id: workspaceId, archived_at: { $exists: false } })
        .sort({ order_key: 1 }) // unique within the workspace: the index's own order
        .toArray();
    // Named drafts by primary key, one read each (an `_id $in` scans the whole collection on FerretDB:
    // by-id.ts), kept when in the workspace, in the order the query would give.
    const byKey = (a: ArtifactDoc, b: ArtifactDoc) =>
      a.order_key < b.order_key ? -1 : a.order_key > b.order_key ? 1 : a._id < b._id ? -1 : a._id > b._id ? 1 : 0;
    return (await findByIds(this.artifacts, ids)).filter((d) => d.collection_id === workspaceId).sort(byKey);
  }

  /**
   * drafts(), each as its latest revision claim has it (latestOf: one primary-key read per draft, so
   * the cost follows the selection, not the collection): what a commit previews and snapshots. Drafts
   * a claim deleted are left out, and from the default selection those a claim archived. A draft
   * whose stored document a late write left archived while its latest claim restored it is not in
   * the default selection (the query reads the stored documents), as with any list.
   */
  async currentDrafts(workspaceId: string, ids: string[] | null): Promise<ArtifactDoc[]> {
    const docs = await this.latestOf(await this.drafts(workspaceId, ids));
    return ids ? docs : docs.filter((d) => !d.archived_at);
  }

  /**
   * Changes a draft at its next revision (a blind edit: a revision lost to another writer is claimed
   * again on the draft as that writer left it), or only at `expected` (RevisionMismatch otherwise).
   */
  update(
    principal: Principal,
    id: string,
    patch: ArtifactPatch,
    source: Provenance['source'],
    expected?: number,
  ): Promise<ArtifactDoc | null> {
    return this.revise(
      id,
      expected,
      { kind: 'artifact_updated', actor: principal.subject, changed: changedFields(patch), source },
      (doc) => ({
        ...revisionState(doc),
        ...patch,
        provenance: this.edited(doc, principal, source),
      }),
    );
  }

  /** Archives (hides from search and from a commit's default selection) or restores a draft. */
  setArchived(principal: Principal, id: string, archived: boolean, source: Provenance['source']): Promise<ArtifactDoc | null> {
    return this.revise(id, undefined, { kind: 'artifact_updated', actor: principal.subject, changed: ['state'], source }, (doc) => {
      const { archived_at: _was, ...state } = revisionState(doc);
      return { ...state, ...(archived ? { archived_at: new Date() } : {}), provenance: this.edited(doc, principal, source) };
    });
  }

  private edited(doc: ArtifactDoc, principal: Principal, source: Provenance['source']): Provenance {
    return { ...doc.provenance, updated_by: principal.subject, updated_at: new Date(), source };
  }

  /**
   * The first revision of a new draft, with its artifact_created event: its history starts with it
   * (a retried create finds it there, and its event once).
   */
  private async claimFirst(doc: ArtifactDoc, cause: WriteCause): Promise<void> {
    try {
      await this.revisions.insertOne(claimWithOutboxEvent(doc, 1, revisionState(doc), cause));
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
  }

  private get revisions() {
    return revisionsCollection(this.db);
  }

  /**
   * One write of a draft, arbitrated by a unique insert: the writer that inserts the claim on revision
   * n+1 owns it, writes the document, and answers; a writer that loses the insert claims again (a
   * blind edit) or is told the revision it missed (`expected`). `next` returns the draft's new state,
   * or null to delete it. The claim carries the write's event (`cause`, issue #21's outbox): the
   * write and its event are one insert. Serialised per draft within the process, so that its own
   * writers do not compete for the same claim; across processes the claim alone decides.
   */
  private revise(
    id: string,
    expected: number | undefined,
    cause: WriteCause,
    next: (doc: ArtifactDoc) => RevisionState | null,
    accept: (doc: ArtifactDoc) => boolean = () => true,
  ): Promise<ArtifactDoc | null> {
    return this.lock.run(id, async () => {
      for (let attempt = 0; ; attempt++) {
        const doc = await this.settle(id);
        if (!doc || !accept(doc)) {
          if (expected !== undefined) throw new RevisionMismatch(doc?.revision ?? null);
          return null;
        }
        if (expected !== undefined && doc.revision !== expected) throw new RevisionMismatch(doc.revision);
        const state = next(doc);
        const revision = doc.revision + 1;
        const claim = claimWithOutboxEvent(doc, revision, state, cause);
        try {
          await this.revisions.insertOne(claim);
        } catch (err) {
          if (!isDuplicateKey(err)) throw err;
          if (expected !== undefined) throw new RevisionMismatch((await this.settle(id))?.revision ?? null);
          if (attempt >= claimRetries) throw new Error(`artifact ${id}: lost the claim on its next revision ${claimRetries} times`);
          continue;
        }
        await this.settle(id, doc, claim); // the claim just inserted is not read back
        return state ? atRevision(doc, revision, state) : null;
      }
    });
  }

  /**
   * The draft brought up to its latest claimed revision, or null when it is gone. A claim whose
   * document write has not happened (its writer crashed, or is still on its way) or was overwritten
   * (the engine does not isolate concurrent updates of one document) is written now: the write is the
   * claim's own state, so whoever makes it, and however often, the result is the same. Every writer
   * of an artifact document settles after its write, so the last write is always followed by a check.
   * `nextClaim`: the claim on the revision after `known`, when the caller has it (its own, just
   * inserted), so it is not read again.
   */
  async settle(id: string, known?: ArtifactDoc | null, nextClaim?: RevisionDoc): Promise<ArtifactDoc | null> {
    let doc = known === undefined ? await this.get(id) : known;
    for (let round = 0; doc; round++) {
      const claim: RevisionDoc | null =
        round === 0 && nextClaim?.revision === doc.revision + 1
          ? nextClaim
          : await this.revisions.findOne({ _id: revisionId(id, doc.revision + 1) });
      if (!claim) return doc;
      if (round >= settleRounds) throw new Error(`artifact ${id}: still behind its revision claims after ${settleRounds} rounds`);
      if (!claim.state) {
        await this.artifacts.deleteOne({ _id: id });
        return null;
      }
      const { archived_at, ...state } = claim.state;
      // The document as this write left it; when another writer had written the claim already, as it is.
      const written = await this.artifacts.findOneAndUpdate(
        { _id: id, revision: { $lt: claim.revision } },
        {
          $set: { ...state, ...(archived_at ? { archived_at } : {}), revision: claim.revision },
          ...(archived_at ? {} : { $unset: { archived_at: '' as const } }),
        },
        { returnDocument: 'after' },
      );
      doc = written ?? (await this.get(id));
    }
    return null;
  }

  /** The revision claim of a draft, if that revision was ever claimed. */
  revisionAt(id: string, revision: number): Promise<RevisionDoc | null> {
    return this.revisions.findOne({ _id: revisionId(id, revision) });
  }

  /** Records the extracted search text of a collection artifact's current version. */
  async setSearchText(id: string, revision: number, text: string): Promise<ArtifactDoc | null> {
    const doc = await this.artifacts.findOneAndUpdate(
      { _id: id, revision },
      { $set: { search_text: { revision, text } }, $unset: { search: '' } },
      { returnDocument: 'after' },
    );
    if (doc) await this.settle(id);
    return doc;
  }

  /**
   * A content-type server's `on_create` enrichment (§4.6): sets context keys of a draft, as a revision
   * of its own like any other write (a claim on the next revision, made from the draft as the latest
   * claim left it, claimed again when another writer won it), so no racing edit, settle or write-back
   * can drop it (issue #30: it was a direct field update, lost once in seven tries). Its provenance
   * names the run (`source.kind` mcp, `lifecycle` on_create, the run's `invocation_id`), so a retried
   * activity finds its own earlier claim instead of writing it again; keys that already hold these
   * values need no revision. Emits artifact_updated (changed: context), as every revision does.
   * Null when the draft is gone (or is not a draft).
   */
  async mergeContext(
    id: string,
    context: Record<string, unknown>,
    run: { invocationId?: string; since?: Date } = {},
  ): Promise<{ doc: ArtifactDoc; revised: boolean } | null> {
    const keys = Object.entries(context).filter(([k]) => /^[A-Za-z0-9_-]{1,100}$/.test(k));
    if (keys.length === 0) return null;
    const current = await this.settle(id);
    if (!current || current.container_kind !== 'workspace') return null;
    if (run.invocationId) {
      const earlier = await this.enrichedBy(current, run.invocationId, run.since);
      if (earlier) return { doc: earlier, revised: true };
    }
    const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
    if (keys.every(([k, v]) => k in current.context && same(current.context[k], v))) return { doc: current, revised: false };
    const source: Provenance['source'] = {
      kind: 'mcp',
      lifecycle: 'on_create',
      ...(run.invocationId ? { invocation_id: run.invocationId } : {}),
    };
    const doc = await this.revise(
      id,
      undefined,
      { kind: 'artifact_updated', actor: current.provenance.created_by, changed: ['context'], source },
      (d) => ({
        ...revisionState(d),
        context: { ...d.context, ...Object.fromEntries(keys) },
        // For the person the run was made for: the one who created the draft.
        provenance: { ...d.provenance, updated_by: d.provenance.created_by, updated_at: new Date(), source },
      }),
      (d) => d.container_kind === 'workspace',
    );
    return doc && { doc, revised: true };
  }

  /**
   * The draft as the enrichment of `invocationId` left it, when an earlier attempt of the same run
   * claimed it: looked for from the latest claim back, by `_id`, over the claims made since the run's
   * activity was first scheduled (at most 100).
   */
  private async enrichedBy(doc: ArtifactDoc, invocationId: string, since?: Date): Promise<ArtifactDoc | null> {
    for (let r = doc.revision; r > 1 && r > doc.revision - 100; r--) {
      const claim = await this.revisionAt(doc._id, r);
      if (!claim?.state || (since && claim.claimed_at < since)) return null;
      const by = claim.state.provenance.source;
      if (by.lifecycle === 'on_create' && by.invocation_id === invocationId) return doc;
    }
    return null;
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
    // A move is not an edit (no revision), but the engine may have written it over a racing edit.
    return moved && ((await this.settle(doc._id)) ?? moved);
  }

  /** Stores an embedding, unless the artifact has moved on to another revision meanwhile. */
  async storeEmbedding(id: string, revision: number, search: NonNullable<ArtifactDoc['search']>): Promise<boolean> {
    const res = await this.artifacts.updateOne({ _id: id, revision }, { $set: { search } });
    // The engine may have written this over a racing edit: bring that edit back.
    if (res.modifiedCount === 1) await this.settle(id);
    return res.modifiedCount === 1;
  }

  /** Every artifact, streamed: the search index is rebuilt from this at start. */
  all(): AsyncIterable<ArtifactDoc> {
    return this.artifacts.find({});
  }

  /**
   * Deletes a draft as its next revision (a claim with no state), or only at `expected`
   * (RevisionMismatch otherwise). False when it was already gone. A collection artifact (no claims:
   * only the commit workflow writes those) is deleted directly. `by`: who deletes it, and through
   * what (the artifact_deleted event's actor and source).
   */
  async delete(id: string, expected: number | undefined, by: { actor: string; source: Provenance['source'] }): Promise<boolean> {
    const doc = await this.get(id);
    if (doc && doc.container_kind !== 'workspace')
      return (await this.artifacts.deleteOne({ _id: id, ...(expected !== undefined ? { revision: expected } : {}) })).deletedCount === 1;
    let deleted = false;
    await this.revise(id, expected, { kind: 'artifact_deleted', actor: by.actor, source: by.source }, () => {
      deleted = true;
      return null;
    });
    return deleted;
  }

  /**
   * Changes a draft only if it is still at `revision` (an agent's proposal was made against it); null
   * when it has moved on, been archived or gone. Context keys are set one by one: other keys stay.
   * Exactly once: the claim on `revision + 1` names the invocation and action, so a retry finds its
   * own earlier write there and answers it again.
   */
  async updateAt(
    principal: Principal,
    id: string,
    revision: number,
    patch: { title?: string; content?: string; context?: Record<string, unknown> },
    source: Provenance['source'],
  ): Promise<ArtifactDoc | null> {
    const mine = async (): Promise<ArtifactDoc | null> => {
      const claim = await this.revisionAt(id, revision + 1);
      const by = claim?.state?.provenance.source;
      if (!claim?.state || !by?.invocation_id || by.invocation_id !== source.invocation_id || by.action_id !== source.action_id)
        return null;
      const doc = await this.settle(id);
      return doc && atRevision(doc, claim.revision, claim.state);
    };
    const earlier = await mine();
    if (earlier) return earlier;
    const { context, ...fields } = patch;
    try {
      return await this.revise(
        id,
        revision,
        { kind: 'artifact_updated', actor: principal.subject, changed: changedFields(patch), source },
        (doc) => ({
          ...revisionState(doc),
          ...fields,
          context: { ...doc.context, ...context },
          provenance: this.edited(doc, principal, source),
        }),
        (doc) => doc.container_kind === 'workspace' && !doc.archived_at,
      );
    } catch (err) {
      if (err instanceof RevisionMismatch) return mine();
      throw err;
    }
  }
}
