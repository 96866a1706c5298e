import type { WorkspaceEvent } from '../events/types.js';
import type { EventStore } from '../store/events.js';

/** The activities of `workspaceEvents`: recording a batch of a workspace's events, and where its seq stands. */
export function createEventActivities(events: EventStore) {
  return {
    /** Records the batch (each event under its seq, when the workflow gave one); returns the ids recorded under it. */
    async recordWorkspaceEvents(batch: (WorkspaceEvent & { seq?: number })[]): Promise<string[]> {
      return events.record(batch);
    },
    /** The workspace's highest recorded seq: a fresh run of its event workflow counts on from it. */
    async lastWorkspaceSeq(workspaceId: string): Promise<number> {
      return events.lastSeq(workspaceId);
    },
  };
}
