// Tells a workspace's subscriptions (issue #21, Tier 3) that events up to `seq` are recorded; each
// subscription's delivery workflow reads them from the event store itself, in order.
import type { Db } from 'mongodb';
import { SubscriptionStore, type SubscriptionDoc } from '../../store/subscriptions.js';

/** Wakes one subscription's delivery workflow (signal-with-start: workflow-clients/subscriptions.ts), so a lost run comes back. */
export type SubscriptionPoke = (subscription: SubscriptionDoc, seq: number) => Promise<void>;

/**
 * `poke` is handed in by the activities (the domain sits below the workflow clients that know the workflow).
 * Paused subscriptions are not woken: they wait for a resume, which delivers their backlog. Safe to
 * call again for the same events (a poke only says "read past your cursor").
 */
export function createSubscriptionNotifier(db: Db, poke: SubscriptionPoke) {
  const subscriptions = new SubscriptionStore(db);
  return async (workspaceId: string, seq: number): Promise<void> => {
    const active = await subscriptions.activeIn(workspaceId);
    await Promise.all(active.map((subscription) => poke(subscription, seq)));
  };
}
