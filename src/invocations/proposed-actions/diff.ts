import { unifiedDiff } from '../../commits/preview.js';
import type { ArtifactDoc } from '../../store/artifact-doc.js';
import type { RevisionDoc } from '../../store/revisions.js';
import type { RecordedAction } from './schema.js';

/** What an update's content would change: a unified diff, cut like a commit preview's. */
export interface ContentDiff {
  content_diff: string;
  content_diff_truncated?: boolean;
}

export interface DiffSources {
  /** The invocation's workspace: only its drafts are compared (a refused action may name another). */
  workspaceId: string;
  /** Whether the reader may read a draft of this content type (its scopes). */
  mayRead: (contentType: string) => boolean;
  getMany: (ids: string[]) => Promise<ArtifactDoc[]>;
  revisionAt: (id: string, revision: number) => Promise<RevisionDoc | null>;
}

/** All the diffs of one read share this much time; the actions past it show their content without one. */
const readBudgetMs = 2_000;

/**
 * The content diffs of an invocation's updates, by action id: the draft at the revision the agent saw
 * (`base_revision`, the only revision the update applies to) against the proposed content. The base is
 * read from the draft's history, so the diff stays the same when the draft changes later (applying
 * would then be a conflict). Refused actions, drafts outside the workspace or unreadable, and updates
 * that leave the content alone have none.
 */
export async function contentDiffs(actions: readonly RecordedAction[], sources: DiffSources): Promise<Map<string, ContentDiff>> {
  const updates = actions.filter(
    (a): a is Extract<RecordedAction, { kind: 'update' }> =>
      a.kind === 'update' && a.status !== 'refused' && a.payload.content !== undefined && a.base_revision !== undefined,
  );
  const diffs = new Map<string, ContentDiff>();
  if (updates.length === 0) return diffs;
  const drafts = new Map((await sources.getMany([...new Set(updates.map((a) => a.target))])).map((d) => [d._id, d]));
  const deadline = Date.now() + readBudgetMs;
  for (const action of updates) {
    if (Date.now() > deadline) break;
    const draft = drafts.get(action.target);
    if (!draft || draft.container_kind !== 'workspace' || draft.collection_id !== sources.workspaceId) continue;
    if (!sources.mayRead(draft.content_type)) continue;
    const base =
      draft.revision === action.base_revision
        ? draft.content
        : (await sources.revisionAt(draft._id, action.base_revision!))?.state?.content;
    if (base === undefined) continue;
    diffs.set(action.id, unifiedDiff(draft.title, base, action.payload.content!));
  }
  return diffs;
}
