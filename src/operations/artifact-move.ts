import { problems } from '../kernel/errors/problem.js';
import type { ArtifactDoc } from '../store/artifact-doc.js';
import { afterApiWrite, editableDraft } from './artifacts.js';
import type { OperationContext } from './services.js';

/** Moves a draft right after another of its workspace (`afterId` null: first). An order change, not an edit: no revision. */
export async function moveArtifact(ctx: OperationContext, id: string, afterId: string | null): Promise<ArtifactDoc> {
  const { doc: current } = await editableDraft(ctx, id);
  if (afterId === id)
    throw problems.validation('An artifact cannot be moved after itself.', [{ name: 'after_id', reason: 'is the artifact itself' }]);
  const doc = await ctx.services.artifacts.move(current, afterId);
  if (!doc)
    throw problems.validation(`Artifact ${afterId} is not in the same workspace.`, [{ name: 'after_id', reason: 'not in this workspace' }]);
  await afterApiWrite(ctx, 'artifact_updated', doc, ['order_key']);
  return doc;
}
