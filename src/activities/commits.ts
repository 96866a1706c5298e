import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { Db } from 'mongodb';
import { CommitApplier } from '../commits/apply.js';
import { recordPreview, type PreviewSummary } from '../commits/snapshot.js';
import type { Config } from '../config/env.js';
import { validateContent } from '../content-types/index.js';
import { Problem } from '../errors/problem.js';
import { embedArtifacts } from '../search/embed-artifacts.js';
import type { Embedder } from '../search/embedder.js';
import type { ArtifactStore } from '../store/artifacts.js';
import { commitItems, CommitStore, commitsCollection, pendingStates, type CommitDoc, type CommitState } from '../store/commits.js';
import type { PreviewCounts } from '../commits/preview.js';
import type { SearchChangeStore } from '../store/search-changes.js';

/** A state change as the workflow reports it: dates travel as ISO strings. */
export interface CommitStateChange {
  commitId: string;
  state: CommitState;
  expiresAt?: string;
  counts?: PreviewCounts;
  total?: number;
  decision?: { action: 'approve' | 'reject'; by: string; comment: string | null; at: string };
  error?: string;
  extractText?: CommitDoc['extract_text'];
}

/** States a commit may be in before moving to each state: the record only ever moves forward. */
const predecessors: Record<CommitState, CommitState[]> = {
  previewing: [],
  awaiting_approval: ['previewing'],
  applying: ['awaiting_approval'],
  rejected: ['awaiting_approval'],
  expired: ['awaiting_approval'],
  committed: ['applying', 'committed'],
  failed: [...pendingStates],
};

export function createCommitActivities(config: Config, db: Db, deps: { artifacts: ArtifactStore; changes: SearchChangeStore; embedder: Embedder }) {
  const commits = new CommitStore(db);
  const load = async (commitId: string) => {
    const commit = await commits.get(commitId);
    if (!commit) throw ApplicationFailure.nonRetryable(`commit ${commitId} has no record`, 'CommitMissing');
    return commit;
  };

  return {
    /** Computes and records the preview; content a collection refuses fails the commit for good. */
    async previewCommit(commitId: string): Promise<PreviewSummary> {
      const commit = await load(commitId);
      return recordPreview(db, commit, (draft) => {
        try {
          validateContent(draft.content_type, draft.content, { allowStdioMcpServers: config.ALLOW_STDIO_MCP_SERVERS, inCollection: true });
        } catch (err) {
          if (err instanceof Problem) throw ApplicationFailure.nonRetryable(`Artifact ${draft._id} (${draft.title}) cannot go into a collection: ${err.message}`, 'NotCommittable');
          throw err;
        }
      });
    },

    async recordCommitState(change: CommitStateChange): Promise<void> {
      const { commitId, state } = change;
      await commitsCollection(db).updateOne(
        { _id: commitId, state: { $in: predecessors[state] } },
        {
          $set: {
            state,
            rank: pendingStates.includes(state) ? 0 : 1,
            updated_at: new Date(),
            ...(change.expiresAt ? { expires_at: new Date(change.expiresAt) } : {}),
            ...(change.counts ? { counts: change.counts } : {}),
            ...(change.total !== undefined ? { total: change.total } : {}),
            ...(change.decision ? { decision: { ...change.decision, at: new Date(change.decision.at) } } : {}),
            ...(change.error ? { error: change.error } : {}),
            ...(change.extractText ? { extract_text: change.extractText } : {}),
          },
        },
      );
    },

    /** Applies items `offset` .. `offset + limit` of the approved commit; returns how many there were. */
    async applyCommitBatch(input: { commitId: string; offset: number; limit: number }): Promise<number> {
      const commit = await load(input.commitId);
      const applier = new CommitApplier(db, () => Context.current().heartbeat());
      const applied = await applier.applyBatch(commit, input.offset, input.limit);
      await deps.changes.record(...applied.map((item) => item.artifact_id));
      return applied.length;
    },

    /**
     * SPEC §4.6 `extract_text` for typed content, once committed. Content-type servers are called
     * through the MCP client, which is not built yet: until then the hook reports itself skipped.
     */
    async extractCommittedText(commitId: string): Promise<NonNullable<CommitDoc['extract_text']>> {
      const typed = await commitItems(db).countDocuments({ commit_id: commitId, apply_index: { $ne: null }, content_type: { $regex: '^application/vnd\\.', $options: 'i' } });
      return { status: 'skipped', reason: typed ? 'no content-type server can be called yet (MCP client not available)' : 'no typed content' };
    },

    /** Embeds the committed versions that did not inherit their draft's vector. */
    async embedCommitted(commitId: string): Promise<number> {
      const items = await commitItems(db).find({ commit_id: commitId, apply_index: { $ne: null } }, { projection: { artifact_id: 1 } }).toArray();
      let embedded = 0;
      for (let start = 0; start < items.length; start += 100) {
        const heads = await deps.artifacts.getMany(items.slice(start, start + 100).map((i) => i.artifact_id));
        const stale = heads.filter((h) => h.search?.embedder !== deps.embedder.id || h.search.revision !== h.revision);
        embedded += (await embedArtifacts(stale, deps)).filter((o) => o === 'embedded').length;
        Context.current().heartbeat();
      }
      return embedded;
    },
  };
}
