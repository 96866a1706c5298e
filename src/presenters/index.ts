import type { StdioServers } from '../stdio-servers/index.js';
import { eventWire } from '../events/wire.js';
import { stateOf, type ArtifactDoc } from '../store/artifacts.js';
import type { CommitDoc, CommitItemDoc, CommitResultDoc } from '../store/commits.js';
import type { VersionDoc } from '../store/versions.js';
import type { ContainerDoc } from '../store/containers.js';
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
    state: stateOf(doc),
    revision: doc.revision,
    ...(doc.container_kind === 'collection' ? { version: doc.version ?? doc.revision } : {}),
    ...(doc.archived_at ? { archived_at: doc.archived_at.toISOString() } : {}),
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

/** An event as every surface sends it (events/wire.ts). */
export const presentEvent = eventWire;

export function presentPage<T, R>(page: Page<T>, present: (item: T) => R) {
  return { items: page.items.map(present), next_cursor: page.next_cursor };
}

export function presentVersion(doc: VersionDoc, withContent: boolean) {
  const p = doc.provenance;
  return {
    artifact_id: doc.artifact_id,
    collection_id: doc.collection_id,
    version: doc.version,
    title: doc.title,
    content_type: doc.content_type,
    ...(withContent ? { content: doc.content, context: doc.context } : {}),
    provenance: { ...p, committed_at: p.committed_at.toISOString() },
  };
}

/** One preview line of a commit; with its diff when `withDiff`. */
export function presentCommitItem(item: CommitItemDoc, withDiff: boolean) {
  return {
    source_artifact_id: item.source_artifact_id,
    source_revision: item.source_revision,
    artifact_id: item.artifact_id,
    title: item.title,
    content_type: item.content_type,
    status: item.status,
    version: item.version,
    current_version: item.current_version,
    changed_fields: item.changed_fields,
    ...(withDiff
      ? {
          changes: item.changes,
          content_diff: item.content_diff ?? null,
          ...(item.content_diff_truncated ? { content_diff_truncated: true } : {}),
        }
      : {}),
  };
}

/**
 * A commit with its preview (one line per item, diffs at /commits/{id}/items) and, once committed,
 * its results. Lists pass no items: counts and progress only.
 */
export function presentCommit(doc: CommitDoc, items: CommitItemDoc[] | null, results: CommitResultDoc['results'] | null = null) {
  const d = doc.decision;
  return {
    id: doc._id,
    workflow_id: doc.workflow_id,
    workspace_id: doc.workspace_id,
    collection_id: doc.collection_id,
    selection: doc.selection,
    artifact_ids: doc.artifact_ids,
    message: doc.message,
    state: doc.state,
    requested_by: doc.requested_by,
    ...(doc.requested_via ? { requested_via: doc.requested_via } : {}),
    created_at: doc.created_at.toISOString(),
    updated_at: doc.updated_at.toISOString(),
    expires_at: doc.expires_at?.toISOString() ?? null,
    decision: d ? { ...d, at: d.at.toISOString() } : null,
    progress: { applied: doc.applied, total: doc.total },
    preview: doc.counts ? { counts: doc.counts, ...(items ? { items: items.map((i) => presentCommitItem(i, false)) } : {}) } : null,
    results:
      doc.state === 'committed' && results
        ? results.map((r) => ({ source_artifact_id: r.source_artifact_id, artifact_id: r.artifact_id, version: r.version }))
        : null,
    ...(doc.extract_text ? { extract_text: doc.extract_text } : {}),
    ...(doc.error ? { error: doc.error } : {}),
    ...(doc.post_commit_error ? { post_commit_error: doc.post_commit_error } : {}),
    // An approval was refused because the preview went stale (409 commit-stale): what moved.
    ...(doc.stale ? { stale: { items: doc.stale.items, at: doc.stale.at.toISOString() } } : {}),
  };
}

/** GET /mcp/stdio-catalog: what a stdio server registration may name, or why stdio is off here. */
export function presentStdioCatalog(stdio: StdioServers) {
  if (stdio.off !== null) return { available: false, reason: stdio.off, entries: [] };
  return {
    available: true,
    entries: stdio.catalog.entries.map((e) => ({
      id: e.id,
      title: e.title,
      ...(e.description ? { description: e.description } : {}),
      command: e.command,
      ...(e.package ? { package: e.package } : {}),
      args: e.args,
      params: e.params,
      secrets: e.secrets,
      network: e.network,
      limits: e.limits,
    })),
  };
}
