import type { ArtifactDoc } from '../store/artifacts.js';
import type { ContainerDoc } from '../store/containers.js';
import type { EventDoc } from '../store/events.js';
import type { Page } from '../store/pagination.js';

/** What leaves the server: a handler never returns a raw database document. */
export function presentArtifact(doc: ArtifactDoc) {
  const { provenance: p } = doc;
  return {
    id: doc._id,
    title: doc.title,
    content_type: doc.content_type,
    content: doc.content,
    context: doc.context,
    collection_id: doc.collection_id,
    container: doc.container_kind,
    order_key: doc.order_key,
    revision: doc.revision,
    provenance: {
      created_by: p.created_by,
      created_at: p.created_at.toISOString(),
      updated_by: p.updated_by,
      updated_at: p.updated_at.toISOString(),
      source: p.source,
    },
  };
}

export function presentContainer(doc: ContainerDoc) {
  return {
    id: doc._id,
    kind: doc.kind,
    name: doc.name,
    description: doc.description,
    metadata: doc.metadata,
    owner_id: doc.owner_id,
    created_at: doc.created_at.toISOString(),
    updated_at: doc.updated_at.toISOString(),
  };
}

export function presentEvent(doc: EventDoc) {
  return {
    id: doc._id,
    kind: doc.kind,
    workspace_id: doc.workspace_id,
    artifact_id: doc.artifact_id,
    actor: doc.actor,
    occurred_at: doc.occurred_at,
    recorded_at: doc.recorded_at.toISOString(),
    ...(doc.changed ? { changed: doc.changed } : {}),
  };
}

export function presentPage<T, R>(page: Page<T>, present: (item: T) => R) {
  return { items: page.items.map(present), next_cursor: page.next_cursor };
}
