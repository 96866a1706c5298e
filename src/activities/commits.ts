import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { Db } from 'mongodb';
import { CommitApplier } from '../commits/apply.js';
import { recordPreview, type PreviewSummary } from '../commits/snapshot.js';
import type { Config } from '../config/env.js';
import { hasCurrentVector } from '../search/documents.js';
import { embedArtifacts } from '../search/embed-artifacts.js';
import type { Embedder } from '../search/embedder.js';
import type { ArtifactStore } from '../store/artifacts.js';
import { CommitStore, commitsCollection, pendingStates, type CommitDoc, type CommitState } from '../store/commits.js';
import { whyNotCommittable, type PreviewCounts } from '../commits/preview.js';
import type { SearchChangeStore } from '../store/search-changes.js';

/** A state change as the workflow reports it: dates travel as ISO strings. */
export interface CommitStateChange {
  commitId: string;
  state: CommitState;
  expiresAt?: string;
  counts?: PreviewCounts;
  total?: number;
  chunks?: number;
  generation?: number;
  decision?: { action: 'approve' | 'reject'; by: string; comment: string | null; at: string };
  error?: string;
  postCommitError?: string;
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
    async previewCommit(input: { commitId: string; applyBatch: number }): Promise<PreviewSummary> {
      const commit = await load(input.commitId);
      const context = Context.current();
      return recordPreview(db, commit, {
        batch: input.applyBatch,
        generation: context.info.attempt,
        embedderId: deps.embedder.id,
        heartbeat: () => context.heartbeat(),
        validate: (draft) => {
          const why = whyNotCommittable(draft, config.ALLOW_STDIO_MCP_SERVERS);
          if (why) throw ApplicationFailure.nonRetryable(`Artifact ${draft._id} (${draft.title}) cannot go into a collection: ${why}`, 'NotCommittable');
        },
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
            ...(change.chunks !== undefined ? { chunks: change.chunks } : {}),
            ...(change.generation !== undefined ? { generation: change.generation } : {}),
            ...(change.decision ? { decision: { ...change.decision, at: new Date(change.decision.at) } } : {}),
            ...(change.error ? { error: change.error } : {}),
            ...(change.postCommitError ? { post_commit_error: change.postCommitError } : {}),
            ...(change.extractText ? { extract_text: change.extractText } : {}),
          },
        },
      );
    },

    /** Applies chunk `index` of the approved commit; returns how many versions it wrote. */
    async applyCommitChunk(input: { commitId: string; index: number }): Promise<number> {
      const commit = await load(input.commitId);
      const results = await new CommitApplier(db, () => Context.current().heartbeat()).applyChunk(commit, input.index);
      await deps.changes.record(...results.map((r) => r.artifact_id));
      return results.length;
    },

    /**
     * SPEC §4.6 `extract_text` for typed content, once committed. Content-type servers are called
     * through the MCP client, which is not built yet: until then the hook reports itself skipped.
     */
    async extractCommittedText(commitId: string): Promise<NonNullable<CommitDoc['extract_text']>> {
      const typed = (await commits.results(commitId)).filter((r) => /^application\/vnd\./i.test(r.content_type));
      return { status: 'skipped', reason: typed.length ? 'no content-type server can be called yet (MCP client not available)' : 'no typed content' };
    },

    /** Embeds the committed versions that did not inherit their draft's vector. */
    async embedCommitted(commitId: string): Promise<number> {
      const missing = (await commits.results(commitId)).filter((r) => !r.has_vector);
      let embedded = 0;
      for (let start = 0; start < missing.length; start += 32) {
        const heads = await Promise.all(missing.slice(start, start + 32).map((r) => deps.artifacts.get(r.artifact_id)));
        const stale = heads.filter((h): h is NonNullable<typeof h> => h !== null && !hasCurrentVector(h, deps.embedder.id));
        embedded += (await embedArtifacts(stale, deps)).filter((o) => o === 'embedded').length;
        Context.current().heartbeat();
      }
      return embedded;
    },
  };
}
