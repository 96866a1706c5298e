import type { WorkspaceEvent } from '../events/types.js';
import type { EventStore } from '../store/events.js';

/** The activity of `workspaceEvents`: recording a batch of a workspace's events. */
export function createEventActivities(events: EventStore) {
  return {
    async recordWorkspaceEvents(batch: WorkspaceEvent[]): Promise<void> {
      await events.record(batch);
    },
  };
}
