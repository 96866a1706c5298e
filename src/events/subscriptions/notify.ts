// Tells a workspace's subscriptions (issue #21, Tier 3) that events up to `seq` are recorded; each
// subscription's delivery workflow reads them from the event store itself, in order.
// (Skeleton: filled in by the subscriptions work.)
import type { Db } from 'mongodb';

export function createSubscriptionNotifier(_db: Db) {
  return async (_workspaceId: string, _seq: number): Promise<void> => {};
}
