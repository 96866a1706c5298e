import type { Db } from 'mongodb';
import { contentHash, embeddingText } from '../search/documents.js';
import { ArtifactStore, type ArtifactDoc } from '../store/artifacts.js';
import { commitItemId, commitItems, type CommitDoc, type CommitItemDoc, type Snapshot } from '../store/commits.js';
import { countsOf, previewDrafts, type PreviewCounts } from './preview.js';

/** What the workflow keeps of a preview: counts and one line per item, never content or diffs. */
export interface PreviewSummary {
  counts: PreviewCounts;
  /** Items that become versions. */
  total: number;
  items: { source_artifact_id: string; artifact_id: string; title: string; status: string; version: number }[];
}

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

/**
 * Reads the selected drafts and records the commit's preview: one item per draft, holding the diff a
 * reviewer sees and a snapshot of exactly what was reviewed, which is what approval commits
 * (docs/decisions.md). Idempotent: items are keyed by (commit, draft), so a retry overwrites itself.
 */
export async function recordPreview(db: Db, commit: CommitDoc, validate: (draft: ArtifactDoc) => void): Promise<PreviewSummary> {
  const artifacts = new ArtifactStore(db);
  const drafts = await artifacts.drafts(commit.workspace_id, commit.artifact_ids);
  drafts.forEach(validate);
  const previews = await previewDrafts(drafts, commit.collection_id, (ids) => artifacts.getMany(ids), { diff: true });
  let applyIndex = 0;
  const items: CommitItemDoc[] = previews.map((p, position) => ({
    ...p,
    _id: commitItemId(commit._id, p.source_artifact_id),
    commit_id: commit._id,
    position,
    apply_index: p.status === 'unchanged' ? null : applyIndex++,
    snapshot: snapshotOf(drafts[position]!),
  }));
  if (items.length) {
    await commitItems(db).bulkWrite(
      items.map((item) => ({ replaceOne: { filter: { _id: item._id }, replacement: item, upsert: true } })),
      { ordered: false },
    );
  }
  return {
    counts: countsOf(items),
    total: applyIndex,
    items: items.map((i) => ({ source_artifact_id: i.source_artifact_id, artifact_id: i.artifact_id, title: i.title, status: i.status, version: i.version })),
  };
}
