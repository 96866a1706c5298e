import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  condition,
  patched,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { PreviewSummary } from '../commits/snapshot.js';
import type { CommitState } from '../store/commits.js';
import { CommitState as CommitStateAttribute } from '../temporal/search-attributes.js';
import { indexingQueue } from './contracts/queues.js';
import {
  type CommitWorkspaceInput,
  type CommitProgress,
  type CommitStatus,
  type DecisionInput,
  approveUpdate,
  withdrawSignal,
  notPendingFailure,
  commitPreviewQuery,
  commitProgressQuery,
  type CommitStateChange,
  rejectUpdate,
  commitStateQuery,
  staleFailure,
  busyFailure,
} from './contracts/commit-workspace.js';

const { recordCommitState } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});
const { previewCommit } = proxyActivities<Activities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '1 minute',
  // A preview that cannot be made in this long ends the commit `failed` rather than `previewing` forever.
  scheduleToCloseTimeout: '30 minutes',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});
const { applyCommitChunk } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  // Heartbeats after each step: a worker killed mid-batch is noticed within this, and the batch retried.
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});
const { claimCommitVersions } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  // Claiming waits only for commits that still run (commits/claims.ts); this bounds it all the same.
  scheduleToCloseTimeout: '10 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '10 seconds' },
});
/** Approval claims the versions the preview expected, or is refused as stale (docs/decisions.md). */
const claimPatch = 'commit-approval-claims';
const afterApply = {
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '1 minute',
  scheduleToCloseTimeout: '1 hour',
  retry: { initialInterval: '2 seconds', maximumInterval: '2 minutes' },
} as const;
const { extractCommittedText } = proxyActivities<Activities>(afterApply);

/**
 * A commit of workspace drafts into a collection (id `commit-<workspaceId>-<commitId>`): record the
 * preview, wait for a person to approve or reject it, or for the wait to expire, then apply the
 * reviewed snapshot as new collection versions, batch by batch.
 */
export async function commitWorkspace(input: CommitWorkspaceInput): Promise<CommitStatus> {
  const { commitId } = input;
  let state: CommitState = 'previewing';
  let preview: PreviewSummary | null = null;
  let decision: CommitStatus['decision'] = null;
  let decisionRecorded = false;
  const progress: CommitProgress = { applied: 0, total: 0 };
  const status = (): CommitStatus => ({ state, decision, progress: { ...progress } });

  const moveTo = async (next: CommitState, change: Omit<CommitStateChange, 'commitId' | 'state'> = {}) => {
    state = next;
    upsertSearchAttributes([{ key: CommitStateAttribute, value: next }]);
    await recordCommitState({ commitId, state: next, ...change });
  };

  setHandler(commitStateQuery, () => state);
  setHandler(commitPreviewQuery, () => preview);
  setHandler(commitProgressQuery, () => ({ ...progress }));
  // An approval being claimed: no other decision is taken meanwhile, and the expiry waits for it.
  let deciding = false;
  const decide = (action: 'approve' | 'reject') => async (d: DecisionInput) => {
    if (action === 'approve' && patched(claimPatch)) {
      // Before answering: the reviewer is told "approved" only once every version is theirs to write.
      deciding = true;
      try {
        const claim = await claimCommitVersions({ commitId, generation: preview!.generation, chunks: preview!.chunks }).catch(
          (err: unknown) => {
            if (!(err instanceof ActivityFailure)) throw err;
            throw ApplicationFailure.create({
              type: busyFailure,
              nonRetryable: true,
              message: 'The approval could not be taken: claiming what the commit writes did not finish. Nothing was written; try again.',
            });
          },
        );
        if (claim.outcome === 'stale') {
          const n = claim.items.length;
          throw ApplicationFailure.create({
            type: staleFailure,
            nonRetryable: true,
            message:
              `The preview of this commit is stale: ${n} artifact${n === 1 ? '' : 's'} it would write changed in the collection ` +
              'since it was made, so approving it would not do what the preview shows. Nothing was written; request a new commit to review it again.',
            details: [claim.items],
          });
        }
      } finally {
        deciding = false;
      }
    }
    decision = { action, by: d.by, comment: d.comment, at: new Date().toISOString() };
    await condition(() => decisionRecorded);
    return status();
  };
  // The requester's withdrawal (tasks/cancel): it decides the commit unless a person's decision came first.
  let withdrawal: DecisionInput | null = null;
  setHandler(withdrawSignal, (w: DecisionInput) => void (withdrawal ??= w));
  const validator = (_d: DecisionInput) => {
    if (withdrawal && !decision)
      throw ApplicationFailure.create({ type: notPendingFailure, message: 'The commit was withdrawn by its requester.' });
    if (state !== 'awaiting_approval' || decision)
      throw ApplicationFailure.create({ type: notPendingFailure, message: `The commit is ${state}, not awaiting approval.` });
    if (deciding)
      throw ApplicationFailure.create({
        type: notPendingFailure,
        message: 'An approval of this commit is being taken; try again in a moment.',
      });
  };
  setHandler(approveUpdate, decide('approve'), { validator });
  setHandler(rejectUpdate, decide('reject'), { validator });

  try {
    preview = await previewCommit({ commitId, applyBatch: input.applyBatch });
    progress.total = preview.total;
    const expiresAt = new Date(Date.now() + input.expirySeconds * 1000).toISOString();
    await moveTo('awaiting_approval', {
      counts: preview.counts,
      total: preview.total,
      chunks: preview.chunks,
      generation: preview.generation,
      expiresAt,
    });

    await condition(() => decision !== null || (withdrawal !== null && !deciding), input.expirySeconds * 1000);
    // An approval begun before the timer fired is claimed to the end: it decides, or leaves the commit to expire.
    if (decision === null && deciding) await condition(() => !deciding);
    const withdrawn = withdrawal as DecisionInput | null;
    if (decision === null && withdrawn)
      decision = { action: 'reject', by: withdrawn.by, comment: withdrawn.comment, at: new Date().toISOString() };
    // A decision taken in the same instant the timer fired still counts: its validator accepted it.
    const decided = decision as CommitStatus['decision'];
    if (!decided) {
      await moveTo('expired');
      return status();
    }
    await moveTo(decided.action === 'approve' ? 'applying' : 'rejected', { decision: decided });
    decisionRecorded = true;
    if (decided.action === 'reject') {
      await condition(allHandlersFinished);
      return status();
    }

    for (let index = 0; index < preview.chunks; index++) {
      progress.applied += await applyCommitChunk({ commitId, index });
    }
    await moveTo('committed');
  } catch (err) {
    // Only a failure no retry can mend reaches here (content a collection refuses, a vanished record).
    if (err instanceof ActivityFailure) {
      await moveTo('failed', { error: err.cause?.message ?? err.message });
      decisionRecorded = true;
    }
    throw err;
  }
  await condition(allHandlersFinished);

  // After apply: text extraction for typed content (SPEC §4.6), then vectors for what needs them.
  // The commit is already `committed`; these only make the versions better to find, so a step that
  // gives up is recorded on the commit, and the run still completes.
  const { embedCommitted } = proxyActivities<Activities>({ ...afterApply, taskQueue: indexingQueue(workflowInfo().taskQueue) });
  try {
    await recordCommitState({ commitId, state: 'committed', extractText: await extractCommittedText(commitId) });
    await embedCommitted(commitId);
  } catch (err) {
    if (!(err instanceof ActivityFailure)) throw err;
    await recordCommitState({ commitId, state: 'committed', postCommitError: err.cause?.message ?? err.message });
  }
  return status();
}
