import type { Db } from 'mongodb';
import { contentHash, embeddingText } from '../search/documents.js';
import { ArtifactStore, type ArtifactDoc } from '../store/artifacts.js';
import { commitChunkId, commitChunks, commitItemId, commitItems, type CommitChunkDoc, type CommitDoc, type CommitItemDoc, type Snapshot } from '../store/commits.js';
import { countsOf, previewDrafts, type PreviewCounts } from './preview.js';

/** What the workflow keeps of a preview: counts and one line per item, never content or diffs. */
export interface PreviewSummary {
  counts: PreviewCounts;
  /** Items that become versions. */
  total: number;
  /** Apply steps, each one chunk of snapshots. */
  chunks: number;
  items: { source_artifact_id: string; artifact_id: string; title: string; status: string; version: number }[];
}

/** A chunk closes at this much content, whatever its item count: a document stays far below 16 MB. */
const chunkBytes = 4 * 1024 * 1024;
const insertSlice = 500;

function snapshotOf(draft: ArtifactDoc): Snapshot {
  const s = draft.search;
  const embedded = s && s.revision === draft.revision && s.content_hash === contentHash(embeddingText(draft));
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
 * commits (docs/decisions.md). A retry starts over, so the record is that of one attempt.
 */
export async function recordPreview(db: Db, commit: CommitDoc, batch: number, validate: (draft: ArtifactDoc) => void): Promise<PreviewSummary> {
  const artifacts = new ArtifactStore(db);
  const drafts = await artifacts.drafts(commit.workspace_id, commit.artifact_ids);
  drafts.forEach(validate);
  const previews = await previewDrafts(drafts, commit.collection_id, (ids) => artifacts.getMany(ids), { diff: true });
  const items: CommitItemDoc[] = previews.map((p, position) => ({ ...p, _id: commitItemId(commit._id, position), commit_id: commit._id, position }));

  const chunks: CommitChunkDoc[] = [];
  let offset = 0;
  let bytes = 0;
  for (const [i, p] of previews.entries()) {
    if (p.status === 'unchanged') continue;
    const snapshot = snapshotOf(drafts[i]!);
    const size = snapshot.content.length + JSON.stringify(snapshot.context).length;
    let chunk = chunks.at(-1);
    if (!chunk || chunk.items.length >= batch || (bytes + size > chunkBytes && chunk.items.length > 0)) {
      chunk = { _id: commitChunkId(commit._id, chunks.length), commit_id: commit._id, index: chunks.length, offset, items: [] };
      chunks.push(chunk);
      bytes = 0;
    }
    chunk.items.push({ source_artifact_id: p.source_artifact_id, source_revision: p.source_revision, artifact_id: p.artifact_id, version: p.version, current_version: p.current_version, snapshot });
    bytes += size;
    offset++;
  }

  await Promise.all([commitItems(db).deleteMany({ commit_id: commit._id }), commitChunks(db).deleteMany({ commit_id: commit._id })]);
  await insertAll(commitItems(db), items);
  await insertAll(commitChunks(db), chunks);
  return {
    counts: countsOf(items),
    total: offset,
    chunks: chunks.length,
    items: items.map((i) => ({ source_artifact_id: i.source_artifact_id, artifact_id: i.artifact_id, title: i.title, status: i.status, version: i.version })),
  };
}
