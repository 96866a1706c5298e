import { createHash } from 'node:crypto';
import type { Db } from 'mongodb';
import type { PrincipalSnapshot } from '../identity/principal.js';
import { findByIds, inParallelSlices } from './by-id.js';
import { insertNew, isDuplicateKey, refreshStatistics } from './mongo.js';
import { decodeCursor, encodeCursor, invalidCursor, type Page } from './pagination.js';

/** States of an import (docs/decisions.md, "Bulk import"). */
export const importStates = ['running', 'completed', 'cancelled', 'failed'] as const;
export type ImportState = (typeof importStates)[number];

export interface ImportCounts {
  /** Items with an outcome: created + skipped + failed. */
  done: number;
  created: number;
  /** Already imported under the same key (by this import or an earlier one): nothing written. */
  skipped: number;
  failed: number;
}

export const noCounts: ImportCounts = { done: 0, created: 0, skipped: 0, failed: 0 };

/**
 * The record of an import: written by the API when requested (with its items staged), then moved on
 * by the import workflow's activities alone (one writer). The workflow is the authority; this is
 * its queryable projection.
 */
export interface ImportDoc {
  _id: string;
  workflow_id: string;
  workspace_id: string;
  requested_by: string;
  /** Who asked, as the workflow's batches check again that they may still add to the workspace. */
  principal: PrincipalSnapshot;
  /** What the request sent: JSON items, NDJSON lines, multipart files, or URLs to fetch. */
  source: 'json' | 'ndjson' | 'files' | 'urls';
  /** Hash of what was asked: a reused Idempotency-Key with another request is refused. */
  request_hash: string;
  total: number;
  counts: ImportCounts;
  state: ImportState;
  created_at: Date;
  updated_at: Date;
  finished_at: Date | null;
  /** Why a failed import stopped (its items so far stay imported). */
  error?: string;
}

/** One staged item: what the request sent for it, kept until the import has finished. */
export interface StagedItem {
  /** `<import id>:<seq, 8 digits>`: a range of an import's items is a range of the primary key. */
  _id: string;
  import_id: string;
  seq: number;
  /** The item key: one artifact per workspace and key, however often it is imported. */
  key: string;
  /** A document as JSON (title, content_type, content, context), a file, or a URL. */
  item:
    | { kind: 'document'; title: string; content_type: string; content: string; context: Record<string, unknown> }
    | { kind: 'file'; name: string; content_type?: string; data: string }
    | { kind: 'url'; url: string }
    /** Refused as the request was read (a line that is not JSON, a field out of bounds). */
    | { kind: 'invalid'; reason: string; message: string };
}

export const outcomeStatuses = ['created', 'skipped', 'failed'] as const;
export type OutcomeStatus = (typeof outcomeStatuses)[number];

/** What became of one item (append-only: its unique `_id` makes a retried batch write each once). */
export interface ItemOutcome {
  _id: string;
  import_id: string;
  seq: number;
  key: string;
  /** What the item was to the person who sent it: a file's name, a URL, a document's title, or where a bad one was. */
  name: string;
  status: OutcomeStatus;
  artifact_id: string | null;
  /** A stable reason for skipped and failed items (`duplicate-key`, `unsupported-type`, …). */
  reason?: string;
  message?: string;
  at: Date;
}

/** The claim on a workspace's item key: whoever inserts it first owns the key, and names its artifact. */
export interface KeyClaim {
  _id: string;
  workspace_id: string;
  key: string;
  artifact_id: string;
  import_id: string;
  seq: number;
}

/** An item's name for its report (ItemOutcome.name). */
export function itemName(staged: Pick<StagedItem, 'item' | 'key'>): string {
  const item = staged.item;
  if (item.kind === 'file') return item.name;
  if (item.kind === 'url') return item.url;
  if (item.kind === 'document') return item.title;
  return staged.key.replace(/^invalid:/, '');
}

export const itemId = (importId: string, seq: number) => `${importId}:${String(seq).padStart(8, '0')}`;
export const keyClaimId = (workspaceId: string, key: string) =>
  createHash('sha256').update(`${workspaceId}\u0000${key}`).digest('base64url');

/** An import that created this many drafts or more gathers fresh planner statistics when it ends. */
const analyzeAfter = 1_000;

/** Every staged item of an import: a range of the primary key (`;` sorts right after `:`). */
const ofImport = (importId: string) => ({ _id: { $gte: `${importId}:`, $lt: `${importId};` } });

export class ImportStore {
  constructor(private readonly db: Db) {}

  private get imports() {
    return this.db.collection<ImportDoc>('imports');
  }
  get items() {
    return this.db.collection<StagedItem>('import_items');
  }
  get outcomes() {
    return this.db.collection<ItemOutcome>('import_outcomes');
  }
  get keys() {
    return this.db.collection<KeyClaim>('import_keys');
  }

  /** Records a new import; `created: false` with the one recorded first when its id was taken (a replayed request). */
  async create(doc: ImportDoc): Promise<{ doc: ImportDoc; created: boolean }> {
    try {
      await this.imports.insertOne(doc);
      return { doc, created: true };
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      const earlier = await this.get(doc._id);
      if (!earlier) throw err;
      return { doc: earlier, created: false };
    }
  }

  get(id: string): Promise<ImportDoc | null> {
    return this.imports.findOne({ _id: id });
  }

  /** Removes an import whose workflow could not be started (nothing of it ran), with its staged items. */
  async discard(id: string): Promise<void> {
    await this.items.deleteMany(ofImport(id));
    await this.imports.deleteOne({ _id: id });
  }

  /** Stages items in chunks; a chunk staged before (a retried request) stays as it is. */
  async stage(items: StagedItem[], chunk = 500): Promise<void> {
    for (let i = 0; i < items.length; i += chunk) await insertNew(this.items, items.slice(i, i + chunk));
  }

  /** The staged items `from` ≤ seq < `to`, in order: a primary-key range. */
  staged(importId: string, from: number, to: number): Promise<StagedItem[]> {
    return this.items
      .find({ _id: { $gte: itemId(importId, from), $lt: itemId(importId, to) } })
      .sort({ _id: 1 })
      .toArray();
  }

  /** The outcomes recorded for `from` ≤ seq < `to` (a retried batch skips these items). */
  outcomesIn(importId: string, from: number, to: number): Promise<ItemOutcome[]> {
    return this.outcomes
      .find({ _id: { $gte: itemId(importId, from), $lt: itemId(importId, to) } })
      .sort({ _id: 1 })
      .toArray();
  }

  /** Claims keys; for each, the claim that holds it (this one, or the one inserted before). */
  async claimKeys(claims: KeyClaim[]): Promise<KeyClaim[]> {
    const taken = await insertNew(this.keys, claims);
    if (taken.size === 0) return claims;
    const held = new Map(
      (
        await findByIds(
          this.keys,
          [...taken].map((i) => claims[i]!._id),
        )
      ).map((c) => [c._id, c]),
    );
    return claims.map((c, i) => (taken.has(i) ? (held.get(c._id) ?? c) : c));
  }

  /** Gives back keys this import claimed for items that failed after all (each only if still this import's, for that item). */
  async releaseKeys(importId: string, claims: { _id: string; seq: number }[]): Promise<void> {
    await inParallelSlices(claims, (c) => this.keys.deleteOne({ _id: c._id, import_id: importId, seq: c.seq }));
  }

  /** The workflow's progress, written by its activities only (absolute values: a retry writes the same). */
  async progress(id: string, counts: ImportCounts): Promise<void> {
    await this.imports.updateOne({ _id: id }, { $set: { counts, updated_at: new Date() } });
  }

  async finish(id: string, state: Exclude<ImportState, 'running'>, counts: ImportCounts, error?: string): Promise<void> {
    const now = new Date();
    await this.imports.updateOne({ _id: id }, { $set: { state, counts, updated_at: now, finished_at: now, ...(error ? { error } : {}) } });
    await this.items.deleteMany(ofImport(id)); // the outcomes are the report; the staged content lives on in the artifacts
    if (counts.created >= analyzeAfter)
      await refreshStatistics(this.db, ['artifacts', 'artifact_revisions', 'import_keys', 'import_outcomes']);
  }

  /**
   * A workspace's imports, newest first: by the time they were requested (an import with an
   * Idempotency-Key has an id derived from it, which says nothing of when), then by id.
   */
  async list(workspaceId: string, limit: number, cursor?: string): Promise<Page<ImportDoc>> {
    const [at, id] = cursor ? decodeCursor(cursor, 2) : [];
    const before = at ? new Date(at) : undefined;
    if (before && Number.isNaN(before.getTime())) throw invalidCursor();
    const docs = await this.imports
      .find({
        workspace_id: workspaceId,
        ...(before ? { $or: [{ created_at: { $lt: before } }, { created_at: before, _id: { $lt: id! } }] } : {}),
      })
      .sort({ created_at: -1, _id: -1 })
      .limit(limit + 1)
      .toArray();
    const items = docs.slice(0, limit);
    const last = items.at(-1);
    return { items, next_cursor: docs.length > limit && last ? encodeCursor([last.created_at.toISOString(), last._id]) : null };
  }

  /** An import's item outcomes in item order, optionally of one status. */
  async outcomePage(importId: string, status: OutcomeStatus | undefined, limit: number, cursor?: string): Promise<Page<ItemOutcome>> {
    const after = cursor ? decodeCursor(cursor, 1)[0]! : `${importId}:`;
    if (!after.startsWith(`${importId}:`)) throw invalidCursor();
    // With a status: on the (import_id, status, _id) index; without: a range of the primary key.
    const filter = status ? { import_id: importId, status, _id: { $gt: after } } : { _id: { $gt: after, $lt: `${importId};` } };
    const docs = await this.outcomes
      .find(filter)
      .sort({ _id: 1 })
      .limit(limit + 1)
      .toArray();
    const items = docs.slice(0, limit);
    return { items, next_cursor: docs.length > limit ? encodeCursor([items.at(-1)!._id]) : null };
  }
}
