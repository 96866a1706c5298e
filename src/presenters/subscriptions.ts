import type { DeliveryDoc, SubscriptionDoc } from '../store/subscriptions.js';

/** A subscription as the API shows it: never its secret (shown once, on creation). */
export function presentSubscription(doc: SubscriptionDoc) {
  return {
    id: doc._id,
    workspace_id: doc.workspace_id,
    server_id: doc.server_id,
    owner_id: doc.owner_id,
    created_by: doc.created_by,
    url: doc.url,
    kinds: doc.kinds,
    content_types: doc.content_types,
    state: doc.state,
    cursor: doc.cursor,
    failures: doc.failures,
    paused_at: doc.paused_at?.toISOString() ?? null,
    pause_reason: doc.pause_reason,
    created_at: doc.created_at.toISOString(),
    updated_at: doc.updated_at.toISOString(),
  };
}

export function presentDelivery(doc: DeliveryDoc) {
  return {
    event_id: doc.event_id,
    seq: doc.seq,
    attempts: doc.attempts,
    outcome: doc.outcome,
    status_code: doc.status_code,
    error: doc.error,
    at: doc.at.toISOString(),
  };
}
