import { defineQuery, defineSignal } from '@temporalio/workflow';

/**
 * The contract of `indexBacklog` (workflows/index-backlog.ts): one long-lived run per deployment's
 * indexing queue embeds every written revision, in batches (issue #23). It replaces one
 * `indexArtifact` run per revision; that workflow stays registered for runs started before.
 */
export const indexBacklogType = 'indexBacklog';
export type IndexBacklog = (input: IndexBacklogInput) => Promise<void>;

/** The run's id: one per indexing task queue (a deployment's workers and API share one). */
export const indexBacklogWorkflowId = (indexingTaskQueue: string) => `index-backlog-${indexingTaskQueue}`;

/** Revisions written (signal-with-start by every write; a retried write sends its revision again, which is harmless). */
export const revisionsWrittenSignal = defineSignal<[WrittenRevision[]]>('revisionsWritten');
export const indexBacklogStatusQuery = defineQuery<IndexBacklogStatus>('status');

export interface WrittenRevision {
  artifactId: string;
  revision: number;
}

export interface IndexBacklogInput {
  /** Revisions per embedding activity: one model call's worth, bounded memory, a few seconds of CPU. */
  batchSize: number;
  /** Signalled revisions per queueing activity. */
  queueChunk: number;
  /** With no signal, the backlog is looked at again after this long (entries a previous run left). */
  pollSeconds: number;
  /** Continue-as-new after this many activities (history stays bounded). */
  continueAsNewAfter: number;
  /** Carried over a continue-as-new: revisions signalled but not queued yet. */
  pending?: WrittenRevision[];
}

export interface IndexBacklogStatus {
  /** Signalled revisions not yet in the backlog collection. */
  pending: number;
  /** Revisions this run embedded (or found unchanged, or superseded). */
  handled: number;
  batches: number;
}

/** What one embedding activity did. */
export interface EmbedBatchOutcome {
  /** Backlog entries taken (and removed once handled). */
  taken: number;
  embedded: number;
  unchanged: number;
  superseded: number;
  /** A full batch was taken: there may be more. */
  more: boolean;
}
