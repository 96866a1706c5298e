import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { WorkspaceEvent } from '../../events/types.js';

/** The contract of `workspaceEvents` (workflows/workspace-events.ts). */
export const workspaceEventsType = 'workspaceEvents';
export type WorkspaceEvents = (input: WorkspaceEventsInput) => Promise<void>;

export const artifactEventSignal = defineSignal<[WorkspaceEvent]>('artifactEvent');
export const pendingEventsQuery = defineQuery<number>('pendingEvents');

export interface WorkspaceEventsInput {
  workspaceId: string;
  /** Continue-as-new after this many events, to keep history bounded. */
  continueAsNewAfter: number;
  /** Events received but not yet recorded when the previous run continued as new. */
  pending?: WorkspaceEvent[];
}
