import type { EventDoc } from '../../store/events.js';

/**
 * The body of a webhook: the event as `GET /workspaces/{id}/events` presents it (presenters/index.ts
 * presentEvent; the subscriptions tests check this stays a superset of it), plus its `seq` and the
 * outbox's fields when the event has them. Built here because the activities sit below the presenters.
 */
export function webhookPayload(doc: EventDoc): Record<string, unknown> {
  return {
    id: doc._id,
    kind: doc.kind,
    workspace_id: doc.workspace_id,
    artifact_id: doc.artifact_id,
    actor: doc.actor,
    occurred_at: doc.occurred_at,
    recorded_at: doc.recorded_at instanceof Date ? doc.recorded_at.toISOString() : doc.recorded_at,
    ...(doc.changed ? { changed: doc.changed } : {}),
    ...(doc.seq !== undefined ? { seq: doc.seq } : {}),
    ...(doc.content_type !== undefined ? { content_type: doc.content_type } : {}),
    ...(doc.revision !== undefined ? { revision: doc.revision } : {}),
    ...(doc.source !== undefined ? { source: doc.source } : {}),
    ...(doc.depth !== undefined ? { depth: doc.depth } : {}),
  };
}
