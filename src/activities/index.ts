import type { Db } from 'mongodb';
import type { WorkspaceEvent } from '../events/types.js';
import { EventStore } from '../store/events.js';

/** Activities: all I/O the workflows need, bound to the worker's MongoDB. */
export function createActivities(db: Db) {
  const events = new EventStore(db);
  return {
    async recordWorkspaceEvents(batch: WorkspaceEvent[]): Promise<void> {
      await events.record(batch);
    },
  };
}
