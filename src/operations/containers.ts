import { z } from 'zod';
import { requireGrant } from '../identity/grants.js';
import { problems } from '../kernel/errors/problem.js';
import { storableObject } from '../kernel/json/schemas.js';
import type { ContainerDoc, ContainerKind } from '../store/containers.js';
import type { Page } from '../store/pagination.js';
import type { OperationContext } from './services.js';

/** Workspaces and collections: created, listed, read and edited the same way (collection metadata over REST only). */

const fields = {
  name: z.string().trim().min(1).max(200),
  description: z.string().max(10_000),
  metadata: storableObject,
};
export const containerBody = z.strictObject({
  name: fields.name,
  description: fields.description.optional(),
  metadata: fields.metadata.optional(),
});
export const containerPatchBody = containerBody
  .partial()
  .refine((b) => Object.keys(b).length > 0, 'must change at least one of name, description, metadata');

export function createContainer(ctx: OperationContext, kind: ContainerKind, input: z.infer<typeof containerBody>): Promise<ContainerDoc> {
  return ctx.services.containers.create(kind, ctx.state.principal, input);
}

export function listContainers(ctx: OperationContext, kind: ContainerKind, limit: number, cursor?: string): Promise<Page<ContainerDoc>> {
  return ctx.services.containers.list(kind, ctx.state.principal, limit, cursor);
}

/** The container if the principal can see it; 404 otherwise. */
export async function visibleContainer(ctx: OperationContext, kind: ContainerKind, id: string): Promise<ContainerDoc> {
  const doc = await ctx.services.containers.get(kind, ctx.state.principal, id);
  if (!doc) throw problems.notFound(kind, id);
  return doc;
}

/** Renames or describes a container its person may update (U grant). */
export async function updateContainer(
  ctx: OperationContext,
  kind: ContainerKind,
  id: string,
  patch: z.infer<typeof containerPatchBody>,
): Promise<ContainerDoc> {
  const current = await visibleContainer(ctx, kind, id);
  requireGrant(current, ctx.state.principal, 'U');
  return (await ctx.services.containers.update(kind, id, patch))!;
}
