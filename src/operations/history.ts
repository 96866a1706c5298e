import { problems } from '../kernel/errors/problem.js';
import type { ArtifactDoc } from '../store/artifact-doc.js';
import type { Page } from '../store/pagination.js';
import { listRevisions, type RevisionDoc } from '../store/revisions.js';
import type { VersionDoc } from '../store/versions.js';
import { visibleArtifact } from './artifacts.js';
import type { OperationContext } from './services.js';

/**
 * An artifact's history: a workspace draft's revisions (docs/decisions.md, "Revision claims": every
 * revision since revision claims exist, oldest first, each written by exactly one writer), a
 * collection artifact's versions.
 */

/** A workspace draft the principal can read; a collection artifact has versions, not revisions. */
export async function revisionedDraft(ctx: OperationContext, id: string): Promise<ArtifactDoc> {
  const { doc } = await visibleArtifact(ctx, id);
  if (doc.container_kind !== 'workspace') {
    throw problems.conflict(
      'not-revisioned',
      `Artifact ${id} is in a collection: collection artifacts have versions (GET /artifacts/${id}/versions), not revisions.`,
    );
  }
  return doc;
}

export function listDraftRevisions(ctx: OperationContext, draft: ArtifactDoc, limit: number, cursor?: string): Promise<Page<RevisionDoc>> {
  return listRevisions(ctx.services.db, draft._id, limit, cursor);
}

export async function draftRevision(ctx: OperationContext, draft: ArtifactDoc, n: number): Promise<RevisionDoc> {
  const revision = await ctx.services.artifacts.revisionAt(draft._id, n);
  if (!revision) throw problems.notFound('revision', `${draft._id}/revisions/${n}`);
  return revision;
}

/** A collection artifact the principal can read; a draft has revisions, not versions. */
export async function versionedArtifact(ctx: OperationContext, id: string): Promise<ArtifactDoc> {
  const { doc } = await visibleArtifact(ctx, id);
  if (doc.container_kind !== 'collection') {
    throw problems.conflict(
      'not-versioned',
      `Artifact ${id} is a workspace draft: drafts have revisions, not versions. Commit it into a collection to make versions.`,
    );
  }
  return doc;
}

export function listVersions(ctx: OperationContext, artifact: ArtifactDoc, limit: number, cursor?: string): Promise<Page<VersionDoc>> {
  return ctx.services.versions.list(artifact._id, limit, cursor);
}

export async function artifactVersion(ctx: OperationContext, artifact: ArtifactDoc, n: number): Promise<VersionDoc> {
  const version = await ctx.services.versions.get(artifact._id, n);
  if (!version) throw problems.notFound('version', `${artifact._id}/versions/${n}`);
  return version;
}
