import type { ActorKind } from '../identity/principal.js';
import type { Db, Filter } from 'mongodb';
import type { PreviewCounts, PreviewItem } from '../commits/preview.js';
import type { ArtifactDoc } from './artifacts.js';
import { isDuplicateKey } from './mongo.js';
import { decodeCursor, encodeCursor, invalidCursor, pageByNumber, type Page } from './pagination.js';

/** States of a commit (docs/decisions.md). The first three are pending. */
export const commitStates = ['previewing', 'awaiting_approval', 'applying', 'committed', 'rejected', 'expired', 'failed'] as const;
export type CommitState = (typeof commitStates)[number];
export const pendingStates: readonly CommitState[] = ['previewing', 'awaiting_approval', 'applying'];

export interface CommitDecision {
  action: 'approve' | 'reject';
  by: string;
  comment: string | null;
  at: Date;
}

/**
 * The record of a commit: written by the API when requested, then moved along by the commit
 * workflow's activities. The workflow is the authority; this is its queryable projection.
 */
export interface CommitDoc {
  _id: string;
  workflow_id: string;
  workspace_id: string;
  collection_id: string;
  /**
   * The drafts the request selected, resolved when it was made (named, or every draft that was not
   * archived and that the requester's scopes cover): later drafts never slip in.
   */
  artifact_ids: string[];
  selection: 'all' | 'named';
  /** Hash of what was asked: a reused Idempotency-Key with another request is refused. */
  request_hash: string;
  /** The preview attempt whose items and chunks count (a slow, superseded attempt writes its own). */
  generation?: number;
  message: string;
  /** How long the commit waits for a decision once its preview is ready. */
  expiry_seconds: number;
  state: CommitState;
  /** 0 while pending, 1 once ended: lists sort pending first. */
  rank: 0 | 1;
  requested_by: string;
  requested_via?: { kind: Exclude<ActorKind, 'user'>; id: string };
  created_at: Date;
  updated_at: Date;
  expires_at: Date | null;
  counts: PreviewCounts | null;
  /** Items that become versions (new and modified), and how many of them are applied. */
  total: number;
  applied: number;
  /** Apply steps the preview was cut into. */
  chunks?: number;
  decision: CommitDecision | null;
  /** Typed-content text extraction after apply (SPEC §4.6). */
  extract_text?: { status: 'skipped' | 'done'; reason?: string; extracted?: number; failed?: string[] };
  error?: string;
  /** A step after `committed` (text extraction, embedding) that gave up; the versions stand. */
  post_commit_error?: string;
  /** An approval refused because the preview went stale (a collection head moved): what moved. */
  stale?: { items: StaleItem[]; at: Date };
}

/** The reviewed state of one draft: what a commit writes, whatever happens to the draft meanwhile. */
export interface Snapshot {
  title: string;
  content_type: string;
  content: string;
  context: Record<string, unknown>;
  drafted_by: string;
  last_edited_by: string;
  /** The draft's embedding, when it was of exactly this text: the version reuses it. */
  search?: ArtifactDoc['search'];
}

/** One preview line of a commit, with its diff: what reviewers read. */
export interface CommitItemDoc extends PreviewItem {
  _id: string;
  commit_id: string;
  generation: number;
  position: number;
}

/** What one apply step writes: up to COMMIT_APPLY_BATCH reviewed snapshots, read in one go. */
export interface CommitChunkDoc {
  _id: string;
  commit_id: string;
  generation: number;
  index: number;
  /** Apply position of the chunk's first item: progress is `offset + items.length` once it is done. */
  offset: number;
  items: {
    source_artifact_id: string;
    source_revision: number;
    artifact_id: string;
    version: number;
    current_version: number | null;
    snapshot: Snapshot;
  }[];
}

/** What one apply step did: the version each of its items became. */
export interface CommitResultDoc {
  _id: string;
  commit_id: string;
  index: number;
  results: { source_artifact_id: string; artifact_id: string; version: number; content_type: string; has_vector: boolean }[];
}

/**
 * A commit's claim of the version its preview expected for one collection artifact (`_id`
 * `<artifact>:<n>`, n = the previewed head + 1): the unique insert that decides, at approval, which of
 * two commits previewed against the same head may write it (docs/decisions.md). A winner's claims stay
 * for good; a refused commit deletes its own.
 */
export interface VersionClaimDoc {
  _id: string;
  artifact_id: string;
  version: number;
  commit_id: string;
  claimed_at: Date;
}

/** An item whose previewed head moved before approval: the approval is refused (409 `commit-stale`). */
export interface StaleItem {
  source_artifact_id: string;
  artifact_id: string;
  title: string;
  /** The head the preview was made against (null: the artifact did not exist, "new"). */
  previewed_version: number | null;
  /** The head now, or the version another approved commit has claimed (null: unknown, still none). */
  current_version: number | null;
}

/** How a commit's approval claims ended, inserted once (`_id` the commit id): the first word stands. */
export interface ClaimOutcomeDoc {
  _id: string;
  outcome: 'claimed' | 'stale';
  stale?: StaleItem[];
  at: Date;
}

export function versionClaims(db: Db) {
  return db.collection<VersionClaimDoc>('commit_version_claims');
}

export function claimOutcomes(db: Db) {
  return db.collection<ClaimOutcomeDoc>('commit_claim_outcomes');
}

/** Who releases the claim of an ended commit (`<claim>:<commit>:<minute>`): one releaser a minute. */
export function claimReleases(db: Db) {
  return db.collection<{ _id: string; at: Date }>('commit_claim_releases');
}

/** Items and chunks of one preview attempt are keyed by commit, attempt and position. */
export const previewDocId = (commitId: string, generation: number, n: number) => `${commitId}:${generation}:${n}`;
export const commitResultId = (commitId: string, index: number) => `${commitId}:${index}`;

export function commitChunks(db: Db) {
  return db.collection<CommitChunkDoc>('commit_chunks');
}

export function commitResults(db: Db) {
  return db.collection<CommitResultDoc>('commit_results');
}

export function commitItems(db: Db) {
  return db.collection<CommitItemDoc>('commit_items');
}

export function commitsCollection(db: Db) {
  return db.collection<CommitDoc>('commits');
}

export class CommitStore {
  constructor(private readonly db: Db) {}

  private get commits() {
    return commitsCollection(this.db);
  }

  /** Inserts a new commit, or returns the one already stored under this id (a retried request). */
  async create(doc: CommitDoc): Promise<{ doc: CommitDoc; created: boolean }> {
    try {
      await this.commits.insertOne(doc);
      return { doc, created: true };
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      return { doc: (await this.get(doc._id))!, created: false };
    }
  }

  get(id: string): Promise<CommitDoc | null> {
    return this.commits.findOne({ _id: id });
  }

  /** Commits into or out of the given containers: pending first, then newest first (ids from an Idempotency-Key are not time-ordered). */
  async list(
    visible: { workspaces: string[]; collections: string[] },
    q: { workspaceId?: string; state?: CommitState },
    limit: number,
    cursor?: string,
  ): Promise<Page<CommitDoc>> {
    const filter: Filter<CommitDoc>[] = [
      { $or: [{ workspace_id: { $in: visible.workspaces } }, { collection_id: { $in: visible.collections } }] },
    ];
    if (q.workspaceId) filter.push({ workspace_id: q.workspaceId });
    if (q.state) filter.push({ state: q.state });
    if (cursor) {
      const [r, at, id] = decodeCursor(cursor, 3) as [string, string, string];
      const rank = Number(r) as 0 | 1;
      const created = new Date(at);
      if (Number.isNaN(created.getTime()) || !['0', '1'].includes(r)) throw invalidCursor();
      filter.push({
        $or: [{ rank: { $gt: rank } }, { rank, created_at: { $lt: created } }, { rank, created_at: created, _id: { $lt: id } }],
      });
    }
    const docs = await this.commits
      .find({ $and: filter })
      .sort({ rank: 1, created_at: -1, _id: -1 })
      .limit(limit + 1)
      .toArray();
    const items = docs.slice(0, limit);
    const last = items.at(-1);
    return {
      items,
      next_cursor: docs.length > limit && last ? encodeCursor([String(last.rank), last.created_at.toISOString(), last._id]) : null,
    };
  }

  /** Deletes a commit whose workflow could not be started, so that nothing is left half-made. */
  async discard(id: string): Promise<void> {
    await this.commits.deleteOne({ _id: id, state: 'previewing' });
  }

  /** Items of the recorded preview, in order, with their diffs. */
  items(commit: CommitDoc, limit: number, cursor?: string): Promise<Page<CommitItemDoc>> {
    return pageByNumber(commitItems(this.db), { commit_id: commit._id, generation: commit.generation ?? -1 }, 'position', limit, cursor);
  }

  /** Every item without its diff: small enough to list whole in a commit's summary. */
  summaries(commit: CommitDoc): Promise<CommitItemDoc[]> {
    return commitItems(this.db)
      .find({ commit_id: commit._id, generation: commit.generation ?? -1 }, { projection: { content_diff: 0, changes: 0 } })
      .sort({ position: 1 })
      .toArray();
  }

  /** The versions a committed commit made, in apply order. */
  async results(commitId: string): Promise<CommitResultDoc['results']> {
    const docs = await commitResults(this.db).find({ commit_id: commitId }).sort({ index: 1 }).toArray();
    return docs.flatMap((d) => d.results);
  }
}
