import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { Config } from '../kernel/config/env.js';
import { Problem, problems } from '../kernel/errors/problem.js';
import type { CommitDoc, StaleItem } from '../store/commits.js';
import { CollectionId, CommitState, PrincipalId, RunKind, WorkspaceId } from '../temporal/search-attributes.js';
import { within } from '../temporal/within.js';
import { commitWorkspaceType, type CommitWorkspace } from '../workflows/contracts/commit-workspace.js';
import {
  approveUpdate,
  withdrawSignal,
  notPendingFailure,
  rejectUpdate,
  staleFailure,
  busyFailure,
  type CommitStatus,
} from '../workflows/contracts/commit-workspace.js';
import { startOnce } from '../temporal/start-once.js';

/** How long a decision waits for a worker to take it before the reviewer is told to retry. */
const decisionWaitMs = 20_000;

/**
 * 409 `commit-stale`: the approval was refused because a collection artifact the commit would write
 * moved past the head its preview showed; `items` names each, with the previewed and current head.
 */
export const commitStale = (detail: string, items: StaleItem[]) =>
  new Problem(409, 'commit-stale', 'The preview of this commit is stale', detail, { items });

/** The API's side of the commit workflow: start it, and hand it a person's decision. */
export class CommitWorkflows {
  constructor(
    private readonly client: Client,
    private readonly config: Config,
  ) {}

  /** Starts the workflow of a recorded commit; a retried request finds it already started. */
  async start(commit: CommitDoc): Promise<void> {
    await startOnce<CommitWorkspace>(this.client, commitWorkspaceType, {
      workflowId: commit.workflow_id,
      taskQueue: this.config.TEMPORAL_TASK_QUEUE,
      // A commit runs once: a retried request never starts a finished one over again, but may
      // restart one whose first start failed half-way (its record was discarded, so the run failed).
      workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY',
      args: [
        {
          commitId: commit._id,
          workspaceId: commit.workspace_id,
          expirySeconds: commit.expiry_seconds,
          applyBatch: this.config.COMMIT_APPLY_BATCH,
        },
      ],
      typedSearchAttributes: [
        { key: WorkspaceId, value: commit.workspace_id },
        { key: CollectionId, value: commit.collection_id },
        { key: PrincipalId, value: commit.requested_by },
        { key: RunKind, value: 'commit' },
        { key: CommitState, value: 'previewing' },
      ],
    });
  }

  /**
   * Approves or rejects through a workflow update, so the answer is the workflow's own: taken, or
   * refused because the commit is no longer awaiting approval. The update id is the person and the
   * action, so a retried request gets the first answer instead of a second decision.
   */
  async decide(commit: CommitDoc, action: 'approve' | 'reject', by: string, comment: string | null): Promise<CommitStatus> {
    const handle = this.client.workflow.getHandle(commit.workflow_id);
    const update = handle.executeUpdate(action === 'approve' ? approveUpdate : rejectUpdate, {
      args: [{ by, comment }],
      updateId: `${action}-${by}`,
    });
    let answer: { value: CommitStatus } | null;
    try {
      answer = await within(update, decisionWaitMs);
    } catch (err) {
      if (err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure) {
        if (err.cause.type === notPendingFailure) throw problems.conflict('commit-not-pending', err.cause.message);
        if (err.cause.type === staleFailure) throw commitStale(err.cause.message, (err.cause.details?.[0] ?? []) as StaleItem[]);
        if (err.cause.type === busyFailure) throw problems.unavailable(err.cause.message, { retry_after: 5 });
      }
      throw err;
    }
    if (!answer)
      throw problems.unavailable(
        'The commit workflow did not answer in time: no worker may be running. Retry; a repeated decision is not taken twice.',
        { retry_after: 5 },
      );
    return answer.value;
  }

  /**
   * The requester withdraws the commit (MCP tasks/cancel): a signal, recorded by Temporal at once even
   * while no worker runs; the workflow takes it unless a person decided first. A commit whose run has
   * ended has nothing to withdraw.
   */
  async withdraw(commit: CommitDoc, by: string, comment: string): Promise<void> {
    const sent = this.client.workflow
      .getHandle(commit.workflow_id)
      .signal(withdrawSignal, { by, comment })
      .catch((err: unknown) => {
        if (!(err instanceof WorkflowNotFoundError)) throw err;
      });
    if (!(await within(sent, decisionWaitMs)))
      throw problems.unavailable('Temporal did not take the withdrawal in time. Retry: a repeated withdrawal is taken once.', {
        retry_after: 5,
      });
  }
}
