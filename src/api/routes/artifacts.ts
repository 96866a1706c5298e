import { z } from 'zod';
import { requireGrant, type GrantFlag } from '../../auth/grants.js';
import type { Principal, Scope } from '../../auth/principal.js';
import type { ContainerDoc } from '../../store/containers.js';
import { secretReferences, validateContent } from '../../content-types/index.js';
import { problems } from '../../errors/problem.js';
import type { EventKind } from '../../events/types.js';
import type { ArtifactDoc, ArtifactPatch, Provenance } from '../../store/artifacts.js';
import type { AppContext } from '../context.js';
import { presentArtifact, presentPage } from '../presenters.js';
import { idParam, pageQuery, parse } from '../validate.js';
import type { RouteDef } from './route.js';

const mimeLike = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*(\s*;.*)?$/i;
const fields = {
  title: z.string().trim().min(1).max(500),
  content_type: z.string().max(255).regex(mimeLike, 'must be a MIME type such as text/markdown'),
  content: z.string(),
  context: z.record(z.string(), z.unknown()),
};
const createBody = z.strictObject({
  title: fields.title,
  content_type: fields.content_type,
  content: fields.content,
  collection_id: z.uuid({ error: 'must be a UUID' }).optional(),
  context: fields.context.default({}),
  derived_from: z.uuid({ error: 'must be a UUID' }).optional(),
});
const patchBody = z
  .strictObject({ title: fields.title, content_type: fields.content_type, content: fields.content, context: fields.context })
  .partial()
  .refine((b) => Object.keys(b).length > 0, 'must change at least one of title, content_type, content, context');
const listQuery = pageQuery.extend({
  collection_id: z.uuid({ error: 'must be a UUID' }).optional(),
  content_type: z.string().min(1).optional(),
});
/**
 * The artifact id of `/artifacts/:id...`. `/artifacts/search` matches that shape too, for any method
 * but its own POST: answer that with 405, not "id must be a UUID".
 */
function artifactId(ctx: AppContext): string {
  if (ctx.params.id === 'search') throw problems.methodNotAllowed(ctx.method, ['POST']);
  return parse(idParam, ctx.params, 'path').id;
}

const moveBody = z.strictObject({ after_id: z.uuid({ error: 'must be a UUID or null' }).nullable() });

/**
 * A visible artifact and its container, or 404: invisible and missing look the same. Visible means
 * the container is visible and the principal may read this content type.
 */
async function visibleArtifact(ctx: AppContext, id: string): Promise<{ doc: ArtifactDoc; container: ContainerDoc }> {
  const principal = ctx.state.principal!;
  const doc = await ctx.services.artifacts.get(id);
  const container = doc && (await ctx.services.containers.get(doc.container_kind, principal, doc.collection_id));
  if (!doc || !container || !principal.scopes.allowsType('artifact:read', doc.content_type)) throw problems.notFound('artifact', id);
  return { doc, container };
}

/** The principal may `scope` this content type (fine-grained scopes may limit it to some types). */
function requireTypeScope(principal: Principal, scope: Scope, contentType: string): void {
  if (!principal.scopes.allowsType(scope, contentType)) throw problems.insufficientScope(`${scope} (for ${contentType})`);
}

/**
 * A workspace draft the principal may change: visible, not in a collection, within the principal's
 * scope for its content type, and under the person's grant on the workspace.
 */
async function changeableDraft(ctx: AppContext, id: string, scope: Scope, flag: GrantFlag) {
  const found = await visibleArtifact(ctx, id);
  if (found.doc.container_kind !== 'workspace') {
    throw problems.conflict('immutable-artifact', `Artifact ${id} is in a collection; collection artifacts are immutable.`);
  }
  requireTypeScope(ctx.state.principal!, scope, found.doc.content_type);
  requireGrant(found.container, ctx.state.principal!, flag);
  return found;
}

/**
 * What follows a write: the search index, and for workspace artifacts the workspace's event
 * workflow. The write has happened by now, so a failure here is logged rather than failing the
 * request (docs/decisions.md).
 */
async function afterWrite(ctx: AppContext, kind: EventKind, doc: ArtifactDoc, changed?: string[]) {
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
function apiSource(ctx: AppContext): Provenance['source'] {
  const { actor } = ctx.state.principal!;
  return { kind: 'api', request_id: ctx.state.requestId, ...(actor.kind !== 'user' ? { via: { kind: actor.kind, id: actor.id } } : {}) };
}

/**
 * Validates typed content for where it will live, and checks that every secret it references exists
 * and belongs to the person writing it.
 */
async function checkedContent(ctx: AppContext, contentType: string, content: string, container: ContainerDoc): Promise<string> {
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

export const artifactRoutes: RouteDef[] = [
  {
    method: 'post',
    path: '/artifacts',
    access: 'artifact:write',
    body: 'json',
    handler: async (ctx) => {
      const principal = ctx.state.principal!;
      const input = parse(createBody, ctx.state.body, 'body');
      if (!input.collection_id && principal.filters.workspaces !== '*') {
        throw problems.validation('This credential is limited to some workspaces: name one in collection_id.', [{ name: 'collection_id', reason: 'is required' }]);
      }
      const container = input.collection_id
        ? await ctx.services.containers.find(principal, input.collection_id)
        : await ctx.services.containers.defaultWorkspace(principal);
      if (!container) throw problems.notFound('workspace or collection', input.collection_id);
      requireTypeScope(principal, 'artifact:write', input.content_type);
      requireGrant(container, principal, 'C');
      const content = await checkedContent(ctx, input.content_type, input.content, container);
      const doc = await ctx.services.artifacts.create(principal, container, {
        title: input.title,
        content_type: input.content_type,
        content,
        context: input.context,
        source: { ...apiSource(ctx), ...(input.derived_from ? { derived_from: input.derived_from } : {}) },
      });
      await afterWrite(ctx, 'artifact_created', doc);
      ctx.status = 201;
      ctx.set('Location', `/artifacts/${doc._id}`);
      ctx.body = presentArtifact(doc);
    },
  },
  {
    method: 'get',
    path: '/artifacts',
    access: 'artifact:read',
    handler: async (ctx) => {
      const principal = ctx.state.principal!;
      const q = parse(listQuery, ctx.query, 'query');
      let ids: string[];
      if (q.collection_id) {
        if (!(await ctx.services.containers.find(principal, q.collection_id))) throw problems.notFound('workspace or collection', q.collection_id);
        ids = [q.collection_id];
      } else {
        const [workspaces, collections] = await Promise.all([
          ctx.services.containers.visibleIds('workspace', principal),
          ctx.services.containers.visibleIds('collection', principal),
        ]);
        ids = [...workspaces, ...collections];
      }
      const typeLimits = principal.scopes.typeLimits('artifact:read');
      ctx.body = presentPage(await ctx.services.artifacts.list(ids, { contentType: q.content_type, typeLimits }, q.limit, q.cursor), presentArtifact);
    },
  },
  {
    method: 'get',
    path: '/artifacts/:id',
    access: 'artifact:read',
    handler: async (ctx) => {
      const id = artifactId(ctx);
      ctx.body = presentArtifact((await visibleArtifact(ctx, id)).doc);
    },
  },
  {
    method: 'patch',
    path: '/artifacts/:id',
    access: 'artifact:write',
    body: 'json',
    handler: async (ctx) => {
      const principal = ctx.state.principal!;
      const id = artifactId(ctx);
      const patch: ArtifactPatch = parse(patchBody, ctx.state.body, 'body');
      const { doc: current, container } = await changeableDraft(ctx, id, 'artifact:write', 'U');
      if (patch.content_type) requireTypeScope(principal, 'artifact:write', patch.content_type);
      if (patch.content !== undefined || patch.content_type !== undefined) {
        patch.content = await checkedContent(ctx, patch.content_type ?? current.content_type, patch.content ?? current.content, container);
      }
      const doc = await ctx.services.artifacts.update(principal, id, patch, apiSource(ctx));
      if (!doc) throw problems.notFound('artifact', id);
      await afterWrite(ctx, 'artifact_updated', doc, Object.keys(patch));
      ctx.body = presentArtifact(doc);
    },
  },
  {
    method: 'post',
    path: '/artifacts/:id/move',
    access: 'artifact:write',
    body: 'json',
    handler: async (ctx) => {
      const id = artifactId(ctx);
      const { after_id } = parse(moveBody, ctx.state.body, 'body');
      const { doc: current } = await changeableDraft(ctx, id, 'artifact:write', 'U');
      if (after_id === id) throw problems.validation('An artifact cannot be moved after itself.', [{ name: 'after_id', reason: 'is the artifact itself' }]);
      const doc = await ctx.services.artifacts.move(current, after_id);
      if (!doc) throw problems.validation(`Artifact ${after_id} is not in the same workspace.`, [{ name: 'after_id', reason: 'not in this workspace' }]);
      await afterWrite(ctx, 'artifact_updated', doc, ['order_key']);
      ctx.body = presentArtifact(doc);
    },
  },
  {
    method: 'delete',
    path: '/artifacts/:id',
    access: 'artifact:manage',
    handler: async (ctx) => {
      const id = artifactId(ctx);
      const { doc: current } = await changeableDraft(ctx, id, 'artifact:manage', 'D');
      if (await ctx.services.artifacts.delete(id)) await afterWrite(ctx, 'artifact_deleted', current);
      ctx.status = 204;
    },
  },
];
