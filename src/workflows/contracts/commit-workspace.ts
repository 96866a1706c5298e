import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { PreviewCounts } from '../../commits/preview.js';
import type { PreviewSummary } from '../../commits/snapshot.js';
import type { CommitDoc, CommitState } from '../../store/commits.js';

/** The contract of `commitWorkspace` (workflows/commit-workspace.ts): what the API, the activities and the workflow share. */
export const commitWorkspaceType = 'commitWorkspace';
export type CommitWorkspace = (input: CommitWorkspaceInput) => Promise<CommitStatus>;

export interface CommitWorkspaceInput {
  commitId: string;
  workspaceId: string;
  /** How long to wait for a human decision before the commit ends `expired`. */
  expirySeconds: number;
  /** Most items per apply activity (fewer when their content is large): progress moves in these steps. */
  applyBatch: number;
}

export interface DecisionInput {
  /** The person deciding: the API passes the `sub` of their own JWT, never a credential's. */
  by: string;
  comment: string | null;
}

export interface CommitStatus {
  state: CommitState;
  decision: CommitStateChange['decision'] | null;
  progress: CommitProgress;
}

export interface CommitProgress {
  applied: number;
  total: number;
}

export const commitStateQuery = defineQuery<CommitState>('state');
export const commitPreviewQuery = defineQuery<PreviewSummary | null>('preview');
export const commitProgressQuery = defineQuery<CommitProgress>('progress');
/** Updates, not signals: the reviewer learns at once whether the decision was taken (docs/decisions.md). */
export const approveUpdate = defineUpdate<CommitStatus, [DecisionInput]>('approve');
export const rejectUpdate = defineUpdate<CommitStatus, [DecisionInput]>('reject');
/**
 * The requester withdraws the commit (an MCP client's tasks/cancel): a signal, so it is recorded even
 * while no worker runs, and taken whenever the commit has not been decided: before its preview is
 * ready, or while it awaits a person. It ends the commit `rejected`, the withdrawal as its decision.
 */
export const withdrawSignal = defineSignal<[DecisionInput]>('withdraw');

/** The failure type a refused decision carries; the API turns it into 409 `commit-not-pending`. */
export const notPendingFailure = 'CommitNotPending';

/**
 * The failure type of an approval refused because the preview is stale: a collection artifact it
 * would write moved past the head it was previewed against. Its details are the items
 * (`StaleItem[]`); the API turns it into 409 `commit-stale`, and the commit still awaits a decision.
 */
export const staleFailure = 'CommitStale';

/** The failure type of an approval whose claiming did not finish (it gave up): nothing was written; the API answers 503. */
export const busyFailure = 'CommitApprovalBusy';

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
