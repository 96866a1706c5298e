import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { versionedFields } from '../commits/preview.js';
import { problems } from '../kernel/errors/problem.js';
import { stateOf, type ArtifactDoc, type ArtifactPatch } from '../store/artifacts.js';
import { presentArtifact } from '../presenters/index.js';
import type { ContainerDoc } from '../store/containers.js';
import { afterApiWrite, apiSource, changeableDraft, checkedContent, requireTypeScope } from './artifacts.js';
import type { OperationContext } from './services.js';

/** SPEC §4.5 `manage_artifact`: the same actions the MCP tool will offer. */
export const manageActions = ['archive', 'unarchive', 'revert', 'delete'] as const;
export type ManageAction = (typeof manageActions)[number];
export const manageBody = z.strictObject({ action: z.enum(manageActions) });

/** Restores a draft to the version it last became; its next revision carries that content. */
async function revert(ctx: OperationContext, draft: ArtifactDoc, container: ContainerDoc): Promise<ArtifactDoc> {
  const principal = ctx.state.principal;
  if (draft.archived_at) throw problems.conflict('archived-artifact', `Artifact ${draft._id} is archived; unarchive it to revert it.`);
  const version = await ctx.services.versions.lastFrom(draft._id, await ctx.services.containers.visibleIds('collection', principal));
  if (!version)
    throw problems.conflict(
      'never-committed',
      `Artifact ${draft._id} has no committed version you can see: there is nothing to revert to.`,
    );
  const patch: ArtifactPatch = {};
  for (const f of versionedFields) if (!isDeepStrictEqual(draft[f], version[f])) Object.assign(patch, { [f]: version[f] });
  if (Object.keys(patch).length === 0) return draft;
  // The restored content is written like any other: within the caller's scope for its type, with secrets they own.
  requireTypeScope(principal, 'artifact:manage', version.content_type);
  patch.content = await checkedContent(ctx, version.content_type, version.content, container);
  patch.secrets_owner = principal.subject; // as on any content write: checkedContent has just checked they own what it references
  const source = { ...apiSource(ctx), derived_from: version.artifact_id };
  const doc = await ctx.services.artifacts.update(ctx.state.principal, draft._id, patch, source);
  if (!doc) throw problems.notFound('artifact', draft._id);
  await afterApiWrite(ctx, 'artifact_updated', doc, Object.keys(patch));
  return doc;
}

async function setArchived(ctx: OperationContext, draft: ArtifactDoc, archived: boolean): Promise<ArtifactDoc> {
  if (Boolean(draft.archived_at) === archived) return draft;
  const doc = await ctx.services.artifacts.setArchived(ctx.state.principal, draft._id, archived, apiSource(ctx));
  if (!doc) throw problems.notFound('artifact', draft._id);
  await afterApiWrite(ctx, 'artifact_updated', doc, ['state']);
  return doc;
}

/**
 * Archive, unarchive, revert or delete a workspace draft. The answer names the resulting state
 * (`draft`, `archived` or `deleted`); asking for the state a draft is already in changes nothing.
 */
export async function manageArtifact(ctx: OperationContext, id: string, action: ManageAction) {
  const { doc: draft, container } = await changeableDraft(ctx, id, 'artifact:manage', action === 'delete' ? 'D' : 'U');
  if (action === 'delete') {
    if (await ctx.services.artifacts.delete(id, undefined, { actor: ctx.state.principal.subject, source: apiSource(ctx) }))
      await afterApiWrite(ctx, 'artifact_deleted', draft);
    return { action, state: 'deleted' as const, artifact: null };
  }
  const doc = action === 'revert' ? await revert(ctx, draft, container) : await setArchived(ctx, draft, action === 'archive');
  return { action, state: stateOf(doc), artifact: presentArtifact(doc) };
}
