import { agentArtifact, agentById } from '../invocations/agents/registry.js';
import { problems } from '../kernel/errors/problem.js';
import type { ArtifactDoc } from '../store/artifact-doc.js';
import type { ContainerDoc } from '../store/containers.js';
import type { Page } from '../store/pagination.js';
import { visibleArtifact } from './artifacts.js';
import { isBuiltinServer } from './builtin-servers.js';
import type { OperationContext } from './services.js';

/** Reading artifacts: one by id (a task agent and a built-in server are artifacts too), or a page of them. */

/**
 * GET /artifacts/{id}: a stored artifact the principal can read, or the fixed description of a task
 * agent or built-in server (`described`: presented already, no revision).
 */
export async function readArtifact(ctx: OperationContext, id: string): Promise<{ doc: ArtifactDoc } | { described: object }> {
  const agent = agentById(id);
  if (agent) return { described: agentArtifact(agent) };
  if (isBuiltinServer(id)) return { described: ctx.services.builtinServers.artifact() };
  return { doc: (await visibleArtifact(ctx, id)).doc };
}

export interface ArtifactListing {
  collectionId?: string;
  contentType?: string;
  limit: number;
  cursor?: string;
}

/** The artifacts the principal can read: in one workspace or collection, or in every one they see. */
export async function listArtifacts(ctx: OperationContext, q: ArtifactListing): Promise<Page<ArtifactDoc>> {
  const { principal } = ctx.state;
  const { containers, artifacts } = ctx.services;
  let ids: string[];
  if (q.collectionId) {
    if (!(await containers.find(principal, q.collectionId))) throw problems.notFound('workspace or collection', q.collectionId);
    ids = [q.collectionId];
  } else {
    const [workspaces, collections] = await Promise.all([
      containers.visibleIds('workspace', principal),
      containers.visibleIds('collection', principal),
    ]);
    ids = [...workspaces, ...collections];
  }
  const typeLimits = principal.scopes.typeLimits('artifact:read');
  return artifacts.list(ids, { contentType: q.contentType, typeLimits }, q.limit, q.cursor);
}

/** The first artifacts of a container the principal already sees, of the types they may read. */
export function containerArtifacts(ctx: OperationContext, container: ContainerDoc, limit: number): Promise<Page<ArtifactDoc>> {
  return ctx.services.artifacts.list([container._id], { typeLimits: ctx.state.principal.scopes.typeLimits('artifact:read') }, limit);
}
