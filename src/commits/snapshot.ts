import type { Db } from 'mongodb';
import { contentHash, embeddingText, hasCurrentVector } from '../search/documents.js';
import { ArtifactStore, type ArtifactDoc } from '../store/artifacts.js';
import {
  commitChunks,
  commitItems,
  previewDocId,
  type CommitChunkDoc,
  type CommitDoc,
  type CommitItemDoc,
  type Snapshot,
} from '../store/commits.js';
import { countsOf, previewDrafts, type PreviewCounts } from './preview.js';

/** What the workflow keeps of a preview: counts only (the items are in MongoDB, whatever their number). */
export interface PreviewSummary {
  counts: PreviewCounts;
  /** Items that become versions. */
  total: number;
  /** Apply steps, each one chunk of snapshots. */
  chunks: number;
  /** The attempt that recorded this preview: apply reads its chunks only. */
  generation: number;
}

/** A chunk closes at this much content, whatever its item count: a document stays far below 16 MB. */
const chunkBytes = 4 * 1024 * 1024;
const insertSlice = 500;

function snapshotOf(draft: ArtifactDoc, embedderId: string): Snapshot {
  const s = draft.search;
  const embedded = s && hasCurrentVector(draft, embedderId) && s.content_hash === contentHash(embeddingText(draft));
  return {
    title: draft.title,
    content_type: draft.content_type,
    content: draft.content,
    context: draft.context,
    drafted_by: draft.provenance.created_by,
    last_edited_by: draft.provenance.updated_by,
    ...(embedded ? { search: s } : {}),
  };
}

async function insertAll<T extends { _id: string }>(coll: import('mongodb').Collection<T>, docs: T[]): Promise<void> {
  for (let i = 0; i < docs.length; i += insertSlice) await coll.insertMany(docs.slice(i, i + insertSlice) as never[]);
}

/**
 * Reads the selected drafts and records the commit's preview: one item per draft with the diff a
 * reviewer reads, and chunks holding a snapshot of exactly what was reviewed, which is what approval
 * commits (docs/decisions.md). Each attempt writes under its own `generation`, so an attempt that
 * runs on after its retry has won can never touch what the workflow recorded.
 */
export async function recordPreview(
  db: Db,
  commit: CommitDoc,
  options: { batch: number; generation: number; embedderId: string; heartbeat: () => void; validate: (draft: ArtifactDoc) => void },
): Promise<PreviewSummary> {
  const { generation } = options;
  const artifacts = new ArtifactStore(db);
  // Each draft as its latest revision claim has it (read in memory, one primary-key read per draft):
  // a late write may have moved a stored document back behind an acknowledged edit (issue #30).
  // Drafts deleted or archived since the request are left out.
  const drafts = (await artifacts.currentDrafts(commit.workspace_id, commit.artifact_ids)).filter((d) => !d.archived_at);
  drafts.forEach(options.validate);
  const previews = await previewDrafts(drafts, commit.collection_id, (ids) => artifacts.getMany(ids), { diff: true });
  options.heartbeat();
  const items: CommitItemDoc[] = previews.map((p, position) => ({
    ...p,
    _id: previewDocId(commit._id, generation, position),
    commit_id: commit._id,
    generation,
    position,
  }));

  const chunks: CommitChunkDoc[] = [];
  let offset = 0;
  let bytes = 0;
  for (const [i, p] of previews.entries()) {
    if (p.status === 'unchanged') continue;
    const snapshot = snapshotOf(drafts[i]!, options.embedderId);
    const size = snapshot.content.length + JSON.stringify(snapshot.context).length;
    let chunk = chunks.at(-1);
    if (!chunk || chunk.items.length >= options.batch || (bytes + size > chunkBytes && chunk.items.length > 0)) {
      chunk = {
        _id: previewDocId(commit._id, generation, chunks.length),
        commit_id: commit._id,
        generation,
        index: chunks.length,
        offset,
        items: [],
      };
      chunks.push(chunk);
      bytes = 0;
    }
    chunk.items.push({
      source_artifact_id: p.source_artifact_id,
      source_revision: p.source_revision,
      artifact_id: p.artifact_id,
      version: p.version,
      current_version: p.current_version,
      snapshot,
    });
    bytes += size;
    offset++;
  }

  const mine = { commit_id: commit._id, generation };
  await Promise.all([commitItems(db).deleteMany(mine), commitChunks(db).deleteMany(mine)]);
  await insertAll(commitItems(db), items);
  options.heartbeat();
  await insertAll(commitChunks(db), chunks);
  return { counts: countsOf(items), total: offset, chunks: chunks.length, generation };
}
