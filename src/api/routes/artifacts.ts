import { z } from 'zod';
import { requireGrant } from '../../auth/grants.js';
import { problems } from '../../errors/problem.js';
import type { ArtifactPatch } from '../../store/artifacts.js';
import { presentArtifact, presentPage } from '../presenters.js';
import { pageQuery, parse } from '../validate.js';
import { afterWrite, apiSource, artifactId, changeableDraft, checkedContent, editableDraft, requireTypeScope, visibleArtifact } from './artifact-access.js';
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
const moveBody = z.strictObject({ after_id: z.uuid({ error: 'must be a UUID or null' }).nullable() });

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
      const { doc: current, container } = await editableDraft(ctx, id);
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
      const { doc: current } = await editableDraft(ctx, id);
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
