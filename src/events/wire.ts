import type { EventDoc } from '../store/events.js';

/**
 * An event's wire form, the same everywhere it goes: `GET /workspaces/{id}/events`, the live stream
 * and webhooks. Issue #21's fields (the artifact's type and the revision the write made, where the
 * write came from, the automation depth, the workspace's recording order) are absent on events
 * recorded before them.
 */
export function eventWire(doc: EventDoc) {
  return {
    id: doc._id,
    kind: doc.kind,
    workspace_id: doc.workspace_id,
    artifact_id: doc.artifact_id,
    actor: doc.actor,
    occurred_at: doc.occurred_at,
    recorded_at: doc.recorded_at instanceof Date ? doc.recorded_at.toISOString() : String(doc.recorded_at),
    ...(doc.changed ? { changed: doc.changed } : {}),
    ...(doc.content_type ? { content_type: doc.content_type } : {}),
    ...(doc.revision !== undefined ? { revision: doc.revision } : {}),
    ...(doc.source ? { source: doc.source } : {}),
    ...(doc.depth !== undefined ? { depth: doc.depth } : {}),
    ...(doc.seq !== undefined ? { seq: doc.seq } : {}),
  };
}
