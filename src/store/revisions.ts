import type { Db } from 'mongodb';
import type { ArtifactDoc } from './artifact-doc.js';
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
