import { z } from 'zod';
import type { Principal } from '../../auth/principal.js';
import { validateContent } from '../../content-types/index.js';
import { problems } from '../../errors/problem.js';
import type { EventKind } from '../../events/types.js';
import type { ArtifactDoc, ArtifactPatch } from '../../store/artifacts.js';
import { maxPageSize, defaultPageSize } from '../../store/pagination.js';
import type { AppContext } from '../context.js';
import { presentArtifact, presentPage } from '../presenters.js';
import { idParam, parse } from '../validate.js';
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
const listQuery = z.object({
  collection_id: z.uuid({ error: 'must be a UUID' }).optional(),
  content_type: z.string().min(1).optional(),
  limit: z.coerce.number().int().min(1).max(maxPageSize).default(defaultPageSize),
  cursor: z.string().min(1).optional(),
});
const moveBody = z.strictObject({ after_id: z.uuid({ error: 'must be a UUID or null' }).nullable() });

/** A visible artifact, or 404: invisible and missing look the same. */
async function visibleArtifact(ctx: AppContext, id: string): Promise<ArtifactDoc> {
  const doc = await ctx.services.artifacts.get(id);
  if (!doc || !(await ctx.services.containers.get(doc.container_kind, ctx.state.principal!, doc.collection_id))) {
    throw problems.notFound('artifact', id);
  }
  return doc;
}

function requireDraft(doc: ArtifactDoc): void {
  if (doc.container_kind !== 'workspace') {
    throw problems.conflict('immutable-artifact', `Artifact ${doc._id} is in a collection; collection artifacts are immutable.`);
  }
}

/**
 * Workspace artifact writes feed the workspace's event workflow. The write has happened by now, so a
 * Temporal outage is logged rather than failing the request (docs/decisions.md).
 */
async function emit(ctx: AppContext, kind: EventKind, doc: ArtifactDoc, principal: Principal, changed?: string[]) {
  if (doc.container_kind !== 'workspace') return;
  try {
    await ctx.services.publisher.publish(kind, doc.collection_id, doc._id, principal.subject, changed);
  } catch (err) {
    ctx.services.logger.error({ request_id: ctx.state.requestId, err, kind, artifact_id: doc._id }, 'event not delivered');
  }
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
      const container = input.collection_id
        ? await ctx.services.containers.find(principal, input.collection_id)
        : await ctx.services.containers.defaultWorkspace(principal);
      if (!container) throw problems.notFound('workspace or collection', input.collection_id);
      const content = validateContent(input.content_type, input.content, { allowStdioMcpServers: ctx.services.config.ALLOW_STDIO_MCP_SERVERS });
      const doc = await ctx.services.artifacts.create(principal, container, {
        title: input.title,
        content_type: input.content_type,
        content,
        context: input.context,
        source: { kind: 'api', request_id: ctx.state.requestId, ...(input.derived_from ? { derived_from: input.derived_from } : {}) },
      });
      await emit(ctx, 'artifact_created', doc, principal);
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
      ctx.body = presentPage(await ctx.services.artifacts.list(ids, q.content_type, q.limit, q.cursor), presentArtifact);
    },
  },
  {
    method: 'get',
    path: '/artifacts/:id',
    access: 'artifact:read',
    handler: async (ctx) => {
      const { id } = parse(idParam, ctx.params, 'path');
      ctx.body = presentArtifact(await visibleArtifact(ctx, id));
    },
  },
  {
    method: 'patch',
    path: '/artifacts/:id',
    access: 'artifact:write',
    body: 'json',
    handler: async (ctx) => {
      const principal = ctx.state.principal!;
      const { id } = parse(idParam, ctx.params, 'path');
      const patch: ArtifactPatch = parse(patchBody, ctx.state.body, 'body');
      const current = await visibleArtifact(ctx, id);
      requireDraft(current);
      if (patch.content !== undefined || patch.content_type !== undefined) {
        patch.content = validateContent(patch.content_type ?? current.content_type, patch.content ?? current.content, {
          allowStdioMcpServers: ctx.services.config.ALLOW_STDIO_MCP_SERVERS,
        });
      }
      const doc = await ctx.services.artifacts.update(principal, id, patch, { kind: 'api', request_id: ctx.state.requestId });
      if (!doc) throw problems.notFound('artifact', id);
      await emit(ctx, 'artifact_updated', doc, principal, Object.keys(patch));
      ctx.body = presentArtifact(doc);
    },
  },
  {
    method: 'post',
    path: '/artifacts/:id/move',
    access: 'artifact:write',
    body: 'json',
    handler: async (ctx) => {
      const { id } = parse(idParam, ctx.params, 'path');
      const { after_id } = parse(moveBody, ctx.state.body, 'body');
      const current = await visibleArtifact(ctx, id);
      requireDraft(current);
      if (after_id === id) throw problems.validation('An artifact cannot be moved after itself.', [{ name: 'after_id', reason: 'is the artifact itself' }]);
      const doc = await ctx.services.artifacts.move(current, after_id);
      if (!doc) throw problems.validation(`Artifact ${after_id} is not in the same workspace.`, [{ name: 'after_id', reason: 'not in this workspace' }]);
      await emit(ctx, 'artifact_updated', doc, ctx.state.principal!, ['order_key']);
      ctx.body = presentArtifact(doc);
    },
  },
  {
    method: 'delete',
    path: '/artifacts/:id',
    access: 'artifact:manage',
    handler: async (ctx) => {
      const { id } = parse(idParam, ctx.params, 'path');
      const current = await visibleArtifact(ctx, id);
      requireDraft(current);
      if (await ctx.services.artifacts.delete(id)) await emit(ctx, 'artifact_deleted', current, ctx.state.principal!);
      ctx.status = 204;
    },
  },
];
