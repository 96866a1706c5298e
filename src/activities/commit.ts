import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Db } from 'mongodb';
import { CommitApplier } from '../commits/apply.js';
import { claimVersions, type ClaimResult } from '../commits/claims.js';
import { recordPreview, type PreviewSummary } from '../commits/snapshot.js';
import type { Config } from '../kernel/config/env.js';
import { hasCurrentVector } from '../search/documents.js';
import { embedArtifacts } from '../search/embed-artifacts.js';
import type { Embedder } from '../search/embedder.js';
import type { ArtifactStore } from '../store/artifacts.js';
import { CommitStore, commitsCollection, pendingStates, type CommitDoc, type CommitState } from '../store/commits.js';
import { whyNotCommittable } from '../commits/preview.js';
import { commitOutcomes } from '../observability/metrics.js';
import type { SearchChangeStore } from '../store/search-changes.js';
import { McpCatalogStore } from '../store/mcp-catalog.js';
import type { ExternalServers } from '../mcp-client/external.js';
import { lifecycleArguments, lifecycleServer, resultText } from '../mcp-client/lifecycle.js';
import { stdioServers } from '../stdio-servers/index.js';
import { heartbeating, settle } from './call-support.js';
import { type CommitStateChange } from '../workflows/contracts/commit-workspace.js';
import { within } from '../temporal/within.js';

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

const finalStates: CommitState[] = ['committed', 'rejected', 'expired', 'failed'];

/**
 * Whether a commit's workflow still runs (a claim it holds may still be written), asked of Temporal.
 * Unknown (no answer within 10 s) counts as running: the caller waits and asks again.
 */
async function commitRunning(db: Db, client: Client, commitId: string): Promise<boolean> {
  const commit = await commitsCollection(db).findOne({ _id: commitId }, { projection: { workflow_id: 1 } });
  if (!commit) return false;
  try {
    const answer = await within(client.workflow.getHandle(commit.workflow_id).describe(), 10_000);
    return answer === null || answer.value.status.name === 'RUNNING';
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}

/** Records a state change the workflow reports; the record only moves forward, so a late retry changes nothing. */
async function recordCommitState(db: Db, change: CommitStateChange): Promise<void> {
  const { commitId, state } = change;
  // Only `committed` may follow itself (the workflow's later reports, a retry): such a write is not counted again.
  const again =
    predecessors[state].includes(state) && (await commitsCollection(db).countDocuments({ _id: commitId, state }, { limit: 1 })) > 0;
  const written = await commitsCollection(db).updateOne(
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
  if (written.modifiedCount > 0 && !again && finalStates.includes(state)) commitOutcomes.inc({ outcome: state });
}

interface CommitDeps {
  config: Config;
  artifacts: ArtifactStore;
  changes: SearchChangeStore;
  embedder: Embedder;
  external: ExternalServers;
  commits: CommitStore;
  catalog: McpCatalogStore;
  load(commitId: string): Promise<CommitDoc>;
}

/**
 * SPEC §4.6 `extract_text`: committed artifacts of a type that a server of the commit's workspace
 * defines get that server's plain text indexed (and embedded) in place of their raw content. A
 * server that does not implement the tool is skipped; a tool error leaves the raw content indexed
 * and is reported; a transient failure fails the attempt, and the retry skips what is done.
 */
async function extractCommittedText(d: CommitDeps, commitId: string): Promise<NonNullable<CommitDoc['extract_text']>> {
  const commit = await d.load(commitId);
  const results = await d.commits.results(commitId);
  const servers = new Map<string, string | null>();
  let extracted = 0;
  const failed: string[] = [];
  for (const r of results) {
    if (!servers.has(r.content_type))
      servers.set(r.content_type, await lifecycleServer(d.catalog, commit.workspace_id, r.content_type, 'extract_text'));
    const serverId = servers.get(r.content_type);
    const head = serverId ? await d.artifacts.get(r.artifact_id) : null;
    if (!serverId || !head || head.revision !== r.version) continue;
    if (head.search_text?.revision === head.revision) {
      extracted += 1; // done by an earlier attempt
      continue;
    }
    const call = () =>
      d.external.callTool(serverId, 'extract_text', lifecycleArguments(head), { maxTotalMs: d.config.MCP_CALL_MAX_SECONDS * 1000 });
    const result = await heartbeating(() => settle(call));
    if (result.isError) {
      failed.push(`${r.artifact_id}: ${resultText(result, 'message').slice(0, 200)}`);
      continue;
    }
    const updated = await d.artifacts.setSearchText(head._id, head.revision, resultText(result, 'text'));
    if (updated) {
      await embedArtifacts([updated], d);
      await d.changes.record(updated._id);
      extracted += 1;
    }
  }
  if (extracted === 0 && failed.length === 0)
    return { status: 'skipped', reason: 'no committed artifact has a type whose server implements extract_text' };
  return { status: 'done', extracted, ...(failed.length ? { failed } : {}) };
}

export function createCommitActivities(
  config: Config,
  db: Db,
  deps: { artifacts: ArtifactStore; changes: SearchChangeStore; embedder: Embedder; external: ExternalServers },
) {
  const commits = new CommitStore(db);
  const catalog = new McpCatalogStore(db);
  const load = async (commitId: string) => {
    const commit = await commits.get(commitId);
    if (!commit) throw ApplicationFailure.nonRetryable(`commit ${commitId} has no record`, 'CommitMissing');
    return commit;
  };
  const d: CommitDeps = { config, ...deps, commits, catalog, load };

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
          const why = whyNotCommittable(draft, stdioServers(config));
          if (why)
            throw ApplicationFailure.nonRetryable(
              `Artifact ${draft._id} (${draft.title}) cannot go into a collection: ${why}`,
              'NotCommittable',
            );
        },
      });
    },

    recordCommitState: (change: CommitStateChange): Promise<void> => recordCommitState(db, change),

    /**
     * At approval, before the workflow answers: claims every version the preview expected, or
     * finds the preview stale (a head moved) and claims nothing (commits/claims.ts).
     */
    async claimCommitVersions(input: { commitId: string; generation: number; chunks: number }): Promise<ClaimResult> {
      const context = Context.current();
      const result = await claimVersions(db, input, {
        heartbeat: () => context.heartbeat(),
        sleep: (ms) => context.sleep(ms),
        commitRunning: (commitId) => commitRunning(db, context.client, commitId),
      });
      // On the record too, so that whoever opens the commit learns it before approving. The workflow
      // is waiting on this activity: nothing else writes the record meanwhile.
      if (result.outcome === 'stale')
        await commitsCollection(db).updateOne(
          { _id: input.commitId, state: 'awaiting_approval' },
          { $set: { stale: { items: result.items, at: new Date() } } },
        );
      return result;
    },

    /** Applies chunk `index` of the approved commit; returns how many versions it wrote. */
    async applyCommitChunk(input: { commitId: string; index: number }): Promise<number> {
      const commit = await load(input.commitId);
      const results = await new CommitApplier(db, () => Context.current().heartbeat()).applyChunk(commit, input.index);
      await deps.changes.record(...results.map((r) => r.artifact_id));
      return results.length;
    },

    extractCommittedText: (commitId: string) => extractCommittedText(d, commitId),

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
