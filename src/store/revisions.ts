import { createHash } from 'node:crypto';
import type { Db } from 'mongodb';
import type { EventKind, WorkspaceEvent } from '../events/types.js';
import type { ArtifactDoc, Provenance } from './artifact-doc.js';
import { decodeCursor, encodeCursor, invalidCursor, type Page } from './pagination.js';

/**
 * What a draft is at one revision: the fields an edit changes. Order key, embedding and extracted
 * text are not part of it (they are not edits; see docs/decisions.md, "Revision claims").
 */
export type RevisionState = Pick<ArtifactDoc, 'title' | 'content_type' | 'content' | 'context' | 'provenance'> &
  Pick<Partial<ArtifactDoc>, 'archived_at' | 'secrets_owner'>;

/**
 * One revision of a workspace draft, and the claim on it: inserted before the draft document is
 * written, under a unique `_id` of artifact and revision. The insert is the one atomic step every
 * MongoDB-wire engine gives us, so exactly one writer owns each revision; the document is then
 * brought to the latest claim (by that writer, or by any later reader or writer when it crashed).
 */
export interface RevisionDoc {
  /** `<artifact id>:<revision, 10 digits>`: one per revision, and in revision order by `_id`. */
  _id: string;
  artifact_id: string;
  revision: number;
  /** The draft at this revision; null when this revision deleted it. */
  state: RevisionState | null;
  claimed_at: Date;
  /**
   * The write's workspace event (issue #21: the outbox), inserted with the claim, so no write exists
   * without its event. Absent on claims made before the outbox.
   */
  event?: WorkspaceEvent;
  /**
   * True while the event waits to be handed to the workspace's event workflow; unset once it is. The
   * sweeper's index: an equality on it is answered from the index on FerretDB too (a range is a
   * collection scan there: 190 ms over 5,000 claims against 4 ms, measured).
   */
  event_waiting?: true;
  /** When the event was handed on (by the write's fast path or by the sweeper). */
  event_relayed_at?: Date;
}

/**
 * A UUIDv7 fixed by a time and a key: ordered like any event id, and the same on every retry of the
 * write it reports (the time is the write's own, as stored). Imported by the event code from here.
 */
export function stableEventId(ms: number, key: string): string {
  const hash = createHash('sha256').update(key).digest('hex');
  const time = Math.max(0, ms).toString(16).padStart(12, '0');
  const variant = ((parseInt(hash[3]!, 16) & 0x3) | 0x8).toString(16);
  return `${time.slice(0, 8)}-${time.slice(8, 12)}-7${hash.slice(0, 3)}-${variant}${hash.slice(4, 7)}-${hash.slice(7, 19)}`;
}

/** What a write says about itself, besides the draft: the event's kind, who, which fields and from where. */
export interface WriteCause {
  kind: EventKind;
  actor: string;
  changed?: string[];
  source: Provenance['source'];
}

/**
 * A revision claim with its event: what ArtifactStore inserts, in one document (the outbox row). The
 * event id is fixed by the claim (its time and artifact:revision), so a retried writer, the fast path
 * and the sweeper all hand on the same event. `depth` comes from the automation that made the write.
 */
export function claimWithOutboxEvent(
  draft: Pick<ArtifactDoc, '_id' | 'collection_id' | 'content_type'>,
  revision: number,
  state: RevisionState | null,
  cause: WriteCause,
): RevisionDoc {
  const claimed_at = new Date();
  const automation = (cause.source as { automation?: { depth?: unknown } }).automation;
  const depth = typeof automation?.depth === 'number' ? automation.depth : 0;
  const event: WorkspaceEvent = {
    id: stableEventId(claimed_at.getTime(), `${draft._id}:${revision}`),
    kind: cause.kind,
    workspace_id: draft.collection_id,
    artifact_id: draft._id,
    actor: cause.actor,
    occurred_at: claimed_at.toISOString(),
    ...(cause.changed ? { changed: cause.changed } : {}),
    content_type: state?.content_type ?? draft.content_type,
    revision,
    source: { ...cause.source },
    depth,
  };
  return { _id: revisionId(draft._id, revision), artifact_id: draft._id, revision, state, claimed_at, event, event_waiting: true };
}

export const revisionId = (artifactId: string, revision: number) => `${artifactId}:${String(revision).padStart(10, '0')}`;

export function revisionsCollection(db: Db) {
  return db.collection<RevisionDoc>('artifact_revisions');
}

/** The fields of a draft that a revision records. */
export function revisionState(doc: ArtifactDoc): RevisionState {
  return {
    title: doc.title,
    content_type: doc.content_type,
    content: doc.content,
    context: doc.context,
    provenance: doc.provenance,
    ...(doc.archived_at ? { archived_at: doc.archived_at } : {}),
    ...(doc.secrets_owner ? { secrets_owner: doc.secrets_owner } : {}),
  };
}

/** The draft as it is at `revision`, over the fields the document holds besides (order key, embedding). */
export function atRevision(doc: ArtifactDoc, revision: number, state: RevisionState): ArtifactDoc {
  const { archived_at: _a, ...rest } = doc;
  return { ...rest, ...state, revision };
}

/** Reads of a draft's revision history (oldest first). Writes happen in ArtifactStore. */
export async function listRevisions(db: Db, artifactId: string, limit: number, cursor?: string): Promise<Page<RevisionDoc>> {
  const after = cursor ? Number(decodeCursor(cursor, 1)[0]) : 0;
  if (!Number.isSafeInteger(after) || after < 0) throw invalidCursor();
  // The range of this artifact's `_id`s, from the revision after the cursor: the `_id` index answers it.
  const docs = await revisionsCollection(db)
    .find({ _id: { $gt: revisionId(artifactId, after), $lt: `${artifactId};` } })
    .sort({ _id: 1 })
    .limit(limit + 1)
    .toArray();
  const items = docs.slice(0, limit);
  const last = items.at(-1);
  return { items, next_cursor: docs.length > limit && last ? encodeCursor([String(last.revision)]) : null };
}

/** An artifact's latest revision claims, newest first (a deleted draft's deletion, then what it was). */
export function latestRevisions(db: Db, artifactId: string, limit: number): Promise<RevisionDoc[]> {
  return revisionsCollection(db)
    .find({ _id: { $gt: revisionId(artifactId, 0), $lt: `${artifactId};` } })
    .sort({ _id: -1 })
    .limit(limit)
    .toArray();
}

/**
 * The outbox (issue #21): claims whose event has not been handed to the workspace's event workflow
 * yet. Read and marked by the event relay (events/outbox-relay.ts); marking is a field set per claim, so
 * doing it twice, or from two processes, changes nothing.
 */
export const outbox = {
  /** The sweeper's index: only claims still waiting carry `event_waiting`. */
  async ensureIndex(db: Db): Promise<void> {
    await revisionsCollection(db).createIndex({ event_waiting: 1 }, { name: 'event_waiting' });
  },

  /**
   * The claim on one revision, if its event still waits (the write's fast path). By `_id` alone: the
   * one lookup every engine answers from its primary key (FerretDB scans for a range, measured).
   */
  async waiting(db: Db, artifactId: string, revision: number): Promise<RevisionDoc | null> {
    const claim = await revisionsCollection(db).findOne({ _id: revisionId(artifactId, revision) });
    return claim?.event && claim.event_waiting ? claim : null;
  },

  /**
   * Claims whose event has waited since `before` or longer, oldest first, at most `limit` (the
   * sweeper). Read by the equality the index answers, among at most `scan` waiting claims; the ones
   * still within their grace are left for the next sweep.
   */
  async due(db: Db, before: Date, limit: number, scan = limit * 4): Promise<RevisionDoc[]> {
    const waiting = await revisionsCollection(db).find({ event_waiting: true }).limit(scan).toArray();
    return waiting
      .filter((c) => c.claimed_at <= before)
      .sort((a, b) => a.claimed_at.getTime() - b.claimed_at.getTime())
      .slice(0, limit);
  },

  /** One update per claim, by `_id` (see waiting()): a field set, so doing it twice changes nothing. */
  async markRelayed(db: Db, ids: string[], at: Date): Promise<void> {
    await Promise.all(
      ids.map((_id) => revisionsCollection(db).updateOne({ _id }, { $set: { event_relayed_at: at }, $unset: { event_waiting: '' } })),
    );
  },
};
