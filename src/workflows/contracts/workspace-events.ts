import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { WorkspaceEvent } from '../../events/types.js';

/** The contract of `workspaceEvents` (workflows/workspace-events.ts). */
export const workspaceEventsType = 'workspaceEvents';
export type WorkspaceEvents = (input: WorkspaceEventsInput) => Promise<void>;

/** One event (before the outbox; still handled for signals already in flight). */
export const artifactEventSignal = defineSignal<[WorkspaceEvent]>('artifactEvent');
/** A batch of one workspace's events, in write order: what the relay sends (issue #21). */
export const artifactEventsSignal = defineSignal<[WorkspaceEvent[]]>('artifactEvents');
export const pendingEventsQuery = defineQuery<number>('pendingEvents');

export interface WorkspaceEventsInput {
  workspaceId: string;
  /** Continue-as-new after this many events, to keep history bounded. */
  continueAsNewAfter: number;
  /** Events received but not yet recorded when the previous run continued as new. */
  pending?: WorkspaceEvent[];
  /** The seq the next recorded event gets, carried over continue-as-new; absent on a fresh start (read from the store). */
  nextSeq?: number;
  /** Ids of the latest events this workflow took, so a relayed-twice event is dropped before it takes a seq. */
  recentIds?: string[];
}
