import type { StdioServers } from '../stdio-servers/index.js';
import { eventWire } from '../events/wire.js';
import { stateOf, type ArtifactDoc } from '../store/artifacts.js';
import type { CommitDoc, CommitItemDoc, CommitResultDoc } from '../store/commits.js';
import type { VersionDoc } from '../store/versions.js';
import type { RevisionDoc } from '../store/revisions.js';
import type { Principal } from '../identity/principal.js';
import type { ContainerDoc } from '../store/containers.js';
import type { Page } from '../store/pagination.js';
import { z } from 'zod';
import { eventKinds } from '../events/types.js';
import { commitStates } from '../store/commits.js';
import { containerKinds, count, openObject, provenanceSchema, timestamp } from './schemas.js';

export const artifactStates = ['draft', 'archived', 'committed'] as const;

/** An artifact: a workspace draft, or the current version of a collection artifact. */
export const artifactSchema = z
  .object({
    id: z.string(),
    title: z.string(),
    content_type: z.string(),
    content: z.string(),
    context: openObject,
    collection_id: z.string().describe('The workspace or collection it is in.'),
    container: z.enum(containerKinds),
    order_key: z.string(),
    state: z.enum(artifactStates),
    revision: count,
    version: count.optional().describe('Collection artifacts: the current version.'),
    archived_at: timestamp.optional(),
    provenance: provenanceSchema,
  })
  .meta({ id: 'Artifact' });
export type Artifact = z.output<typeof artifactSchema>;

/** A built-in agent or the platform toolset read as an artifact: in no container, never changed. */
export const builtinArtifactSchema = z
  .object({
    id: z.string(),
    title: z.string(),
    content_type: z.string(),
    content: z.string(),
    context: openObject,
    collection_id: z.null(),
    container: z.null(),
    state: z.literal('committed'),
    revision: z.literal(1),
  })
  .meta({ id: 'BuiltinArtifact' });

/** What leaves the server: a handler never returns a raw database document. */
export function presentArtifact(doc: ArtifactDoc): Artifact {
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

/** `GET /artifacts/{id}`: an artifact, or a built-in agent or the platform toolset. */
export const artifactReadSchema = z.union([artifactSchema, builtinArtifactSchema]);

export const containerSchema = z
  .object({
    id: z.string(),
    kind: z.enum(containerKinds),
    name: z.string(),
    description: z.string(),
    metadata: openObject,
    owner_id: z.string(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'Container' });
export type Container = z.output<typeof containerSchema>;

/** Who a container is shared with besides its owner, and with which CRUDEASIO flags. */
export const sharesSchema = z
  .object({
    owner_id: z.string(),
    items: z.array(z.object({ person_id: z.string(), flags: z.string() })),
  })
  .meta({ id: 'Shares' });

export function presentContainer(doc: ContainerDoc): Container {
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

export const eventSchema = z
  .object({
    id: z.string(),
    kind: z.enum(eventKinds),
    workspace_id: z.string(),
    artifact_id: z.string(),
    actor: z.string(),
    occurred_at: timestamp,
    recorded_at: timestamp,
    changed: z.array(z.string()).optional(),
    content_type: z.string().optional(),
    revision: count.optional(),
    source: openObject.optional(),
    depth: count.optional(),
    seq: count.optional(),
  })
  .meta({ id: 'Event' });

/** One revision of a workspace draft. Fields of a type the caller may not read are left out, as is the content in a list. */
export const revisionSchema = z
  .object({
    artifact_id: z.string(),
    revision: count,
    claimed_at: timestamp,
    state: z.enum(['draft', 'archived', 'deleted']),
    title: z.string().optional(),
    content_type: z.string().optional(),
    content: z.string().optional(),
    context: openObject.optional(),
    provenance: provenanceSchema.optional(),
  })
  .meta({ id: 'Revision' });

export type Revision = z.output<typeof revisionSchema>;

/**
 * One revision of a draft: who wrote it and how (provenance), and what it was. Fields of a revision
 * whose content type the caller may not read are left out, as is the content of every revision in a
 * list.
 */
export function presentRevision(r: RevisionDoc, principal: Principal, withContent: boolean): Revision {
  const base = { artifact_id: r.artifact_id, revision: r.revision, claimed_at: r.claimed_at.toISOString() };
  if (!r.state) return { ...base, state: 'deleted' as const };
  const s = r.state;
  const p = s.provenance;
  const provenance = { ...p, created_at: p.created_at.toISOString(), updated_at: p.updated_at.toISOString() };
  if (!principal.scopes.allowsType('artifact:read', s.content_type))
    return { ...base, state: s.archived_at ? 'archived' : 'draft', provenance };
  return {
    ...base,
    state: s.archived_at ? ('archived' as const) : ('draft' as const),
    title: s.title,
    content_type: s.content_type,
    ...(withContent ? { content: s.content, context: s.context } : {}),
    provenance,
  };
}

/** `POST /artifacts/{id}/manage`: the state the action left the draft in (null artifact once deleted). */
export const managedArtifactSchema = z
  .object({
    action: z.enum(['archive', 'unarchive', 'revert', 'delete']),
    state: z.enum(['draft', 'archived', 'committed', 'deleted']),
    artifact: artifactSchema.nullable(),
  })
  .meta({ id: 'ManagedArtifact' });

export function presentPage<T, R>(page: Page<T>, present: (item: T) => R) {
  return { items: page.items.map(present), next_cursor: page.next_cursor };
}

/** One immutable version of a collection artifact; its content only when read on its own. */
export const versionSchema = z
  .object({
    artifact_id: z.string(),
    collection_id: z.string(),
    version: count,
    title: z.string(),
    content_type: z.string(),
    content: z.string().optional(),
    context: openObject.optional(),
    provenance: z.object({
      drafted_by: z.string(),
      last_edited_by: z.string(),
      commit_id: z.string().nullable(),
      requested_by: z.string(),
      approved_by: z.string().nullable(),
      source_artifact_id: z.string().nullable(),
      source_revision: count.nullable(),
      committed_at: timestamp,
    }),
  })
  .meta({ id: 'Version' });
export type Version = z.output<typeof versionSchema>;

export function presentVersion(doc: VersionDoc, withContent: boolean): Version {
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

const counts = z.object({ new: count, modified: count, unchanged: count });
const versionedField = z.enum(['title', 'content_type', 'content', 'context']);

/** One preview line of a commit: what committing one draft does; its changes and diff when listed with them. */
export const commitItemSchema = z
  .object({
    source_artifact_id: z.string(),
    source_revision: count,
    artifact_id: z.string(),
    title: z.string(),
    content_type: z.string(),
    status: z.enum(['new', 'modified', 'unchanged']),
    version: count,
    current_version: count.nullable(),
    changed_fields: z.array(versionedField),
    changes: z.record(z.string(), z.object({ from: z.unknown(), to: z.unknown() })).optional(),
    content_diff: z.string().nullable().optional(),
    content_diff_truncated: z.literal(true).optional(),
  })
  .meta({ id: 'CommitItem' });
export type CommitItem = z.output<typeof commitItemSchema>;

/** `POST /workspaces/{id}/commit-preview`: what committing would change, with diffs, and why a draft cannot go. */
export const commitPreviewSchema = z
  .object({
    workspace_id: z.string(),
    collection_id: z.string(),
    counts,
    items: z.array(
      commitItemSchema.extend({
        changes: z.record(z.string(), z.object({ from: z.unknown(), to: z.unknown() })),
        content_diff: z.string().nullable(),
        not_committable: z.string().optional(),
      }),
    ),
  })
  .meta({ id: 'CommitPreview' });

const staleItem = z.object({
  source_artifact_id: z.string(),
  artifact_id: z.string(),
  title: z.string(),
  previewed_version: count.nullable(),
  current_version: count.nullable(),
});

/** A commit: its request, state, decision, preview (counts; items when read on its own), progress and results. */
export const commitSchema = z
  .object({
    id: z.string(),
    workflow_id: z.string(),
    workspace_id: z.string(),
    collection_id: z.string(),
    selection: z.enum(['all', 'named']),
    artifact_ids: z.array(z.string()),
    message: z.string(),
    state: z.enum(commitStates),
    requested_by: z.string(),
    requested_via: z.object({ kind: z.enum(['server_credential', 'api_key', 'oauth_client']), id: z.string() }).optional(),
    created_at: timestamp,
    updated_at: timestamp,
    expires_at: timestamp.nullable(),
    decision: z.object({ action: z.enum(['approve', 'reject']), by: z.string(), comment: z.string().nullable(), at: timestamp }).nullable(),
    progress: z.object({ applied: count, total: count }),
    preview: z.object({ counts, items: z.array(commitItemSchema).optional() }).nullable(),
    results: z.array(z.object({ source_artifact_id: z.string(), artifact_id: z.string(), version: count })).nullable(),
    extract_text: z
      .object({
        status: z.enum(['skipped', 'done']),
        reason: z.string().optional(),
        extracted: count.optional(),
        failed: z.array(z.string()).optional(),
      })
      .optional(),
    error: z.string().optional(),
    post_commit_error: z.string().optional(),
    stale: z.object({ items: z.array(staleItem), at: timestamp }).optional(),
  })
  .meta({ id: 'Commit' });
export type Commit = z.output<typeof commitSchema>;

/** One preview line of a commit; with its diff when `withDiff`. */
export function presentCommitItem(item: CommitItemDoc, withDiff: boolean): CommitItem {
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
export function presentCommit(doc: CommitDoc, items: CommitItemDoc[] | null, results: CommitResultDoc['results'] | null = null): Commit {
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

export const stdioCatalogSchema = z
  .object({
    available: z.boolean(),
    reason: z.string().optional().describe('Why stdio servers are off here.'),
    entries: z.array(
      z.object({
        id: z.string(),
        title: z.string(),
        description: z.string().optional(),
        command: z.string(),
        package: z.object({ name: z.string(), version: z.string() }).optional(),
        args: z.array(z.string()),
        params: z.record(z.string(), openObject),
        secrets: z.record(z.string(), z.object({ description: z.string().optional(), required: z.boolean() })),
        network: z.boolean(),
        limits: openObject,
      }),
    ),
  })
  .meta({ id: 'StdioCatalog' });

/** GET /mcp/stdio-catalog: what a stdio server registration may name, or why stdio is off here. */
export function presentStdioCatalog(stdio: StdioServers): z.output<typeof stdioCatalogSchema> {
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
