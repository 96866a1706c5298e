import type { RecordedEvent } from '../events/types.js';
import { heartbeating } from './call-support.js';

/** Who consumes a workspace's recorded events, besides the store: subscriptions and automations. */
export interface EventConsumers {
  notifySubscriptions(workspaceId: string, seq: number): Promise<void>;
  runAutomations(events: RecordedEvent[]): Promise<void>;
}

/** The activity `workspaceEvents` runs after recording each batch: both consumers, retried together (each is idempotent). */
export function createEventDispatchActivities(consumers: EventConsumers) {
  return {
    async dispatchWorkspaceEvents(workspaceId: string, events: RecordedEvent[]): Promise<void> {
      if (events.length === 0) return;
      // Heartbeats while it runs (the workflow gives it a short heartbeat timeout).
      await heartbeating(() =>
        Promise.all([consumers.notifySubscriptions(workspaceId, events.at(-1)!.seq), consumers.runAutomations(events)]),
      );
    },
  };
}
