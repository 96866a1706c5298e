import { requireGrant, type GrantFlag } from '../../auth/grants.js';
import type { Principal, Scope } from '../../auth/principal.js';
import { secretReferences, validateContent } from '../../content-types/index.js';
import { problems } from '../../errors/problem.js';
import type { EventKind } from '../../events/types.js';
import type { ArtifactDoc, Provenance } from '../../store/artifacts.js';
import type { ContainerDoc } from '../../store/containers.js';
import type { AppContext } from '../context.js';
import { idParam, parse } from '../validate.js';

/**
 * The artifact id of `/artifacts/:id...`. `/artifacts/search` matches that shape too, for any method
 * but its own POST: answer that with 405, not "id must be a UUID".
 */
export function artifactId(ctx: AppContext): string {
  if (ctx.params.id === 'search') throw problems.methodNotAllowed(ctx.method, ['POST']);
  return parse(idParam, ctx.params, 'path').id;
}

/**
 * A visible artifact and its container, or 404: invisible and missing look the same. Visible means
 * the container is visible and the principal may read this content type.
 */
export async function visibleArtifact(ctx: AppContext, id: string): Promise<{ doc: ArtifactDoc; container: ContainerDoc }> {
  const principal = ctx.state.principal!;
  const doc = await ctx.services.artifacts.get(id);
  const container = doc && (await ctx.services.containers.get(doc.container_kind, principal, doc.collection_id));
  if (!doc || !container || !principal.scopes.allowsType('artifact:read', doc.content_type)) throw problems.notFound('artifact', id);
  return { doc, container };
}

/** The principal may `scope` this content type (fine-grained scopes may limit it to some types). */
export function requireTypeScope(principal: Principal, scope: Scope, contentType: string): void {
  if (!principal.scopes.allowsType(scope, contentType)) throw problems.insufficientScope(`${scope} (for ${contentType})`);
}

/**
 * A workspace draft the principal may change: visible, not in a collection, within the principal's
 * scope for its content type, and under the person's grant on the workspace.
 */
export async function changeableDraft(ctx: AppContext, id: string, scope: Scope, flag: GrantFlag) {
  const found = await visibleArtifact(ctx, id);
  if (found.doc.container_kind !== 'workspace') {
    throw problems.conflict('immutable-artifact', `Artifact ${id} is in a collection, and collection artifacts are immutable: change its draft in a workspace and commit it (POST /workspaces/{id}/commits) to make a new version.`);
  }
  requireTypeScope(ctx.state.principal!, scope, found.doc.content_type);
  requireGrant(found.container, ctx.state.principal!, flag);
  return found;
}

/** A draft whose content may be edited: changeable, and not archived (unarchive it first). */
export async function editableDraft(ctx: AppContext, id: string) {
  const found = await changeableDraft(ctx, id, 'artifact:write', 'U');
  if (found.doc.archived_at) throw problems.conflict('archived-artifact', `Artifact ${id} is archived; unarchive it (POST /artifacts/${id}/manage) to edit it.`);
  return found;
}

/**
 * What follows a write: the search index, and for workspace artifacts the workspace's event
 * workflow. The write has happened by now, so a failure here is logged rather than failing the
 * request (docs/decisions.md).
 */
export async function afterWrite(ctx: AppContext, kind: EventKind, doc: ArtifactDoc, changed?: string[]) {
  const steps: [string, () => Promise<unknown>][] = [];
  if (kind === 'artifact_deleted') steps.push(['search index', () => ctx.services.search.deleted(doc._id)]);
  else if (changed?.join() !== 'order_key') steps.push(['search index', () => ctx.services.search.written(doc)]);
  if (doc.container_kind === 'workspace') {
    steps.push(['event', () => ctx.services.publisher.publish(kind, doc.collection_id, doc._id, ctx.state.principal!.subject, changed)]);
  }
  for (const [what, step] of steps) {
    try {
      await step();
    } catch (err) {
      ctx.services.logger.error({ request_id: ctx.state.requestId, err, kind, artifact_id: doc._id }, `${what} not updated`);
    }
  }
}

/** Provenance of a REST write: the request, and the credential when a person did not act directly. */
export function apiSource(ctx: AppContext): Provenance['source'] {
  const { actor } = ctx.state.principal!;
  return { kind: 'api', request_id: ctx.state.requestId, ...(actor.kind !== 'user' ? { via: { kind: actor.kind, id: actor.id } } : {}) };
}


/**
 * Validates typed content for where it will live, and checks that every secret it references exists
 * and belongs to the person writing it.
 */
export async function checkedContent(ctx: AppContext, contentType: string, content: string, container: ContainerDoc): Promise<string> {
  const checked = validateContent(contentType, content, {
    allowStdioMcpServers: ctx.services.config.ALLOW_STDIO_MCP_SERVERS,
    inCollection: container.kind === 'collection',
  });
  for (const { id, field } of secretReferences(contentType, checked)) {
    if (!(await ctx.services.secrets.get(ctx.state.principal!.subject, id))) {
      throw problems.validation(`Secret ${id} does not exist or is not yours.`, [{ name: field, reason: 'unknown secret' }]);
    }
  }
  return checked;
}

