import { isBuiltinServer } from '../../operations/builtin-servers.js';
import { builtinArtifact } from '../../mcp/server/builtin.js';
import { agentArtifact, agentById } from '../../invocations/agents/registry.js';
import { z } from 'zod';
import { problems } from '../../kernel/errors/problem.js';
import {
  afterWrite,
  artifactPatchInput,
  createArtifact,
  createArtifactInput,
  deleteArtifact,
  editableDraft,
  etagOf,
  ifMatch,
  updateArtifact,
  visibleArtifact,
} from '../../operations/artifacts.js';
import { presentArtifact, presentPage } from '../../presenters/index.js';
import { pageQuery, parse } from '../validate.js';
import { artifactId } from '../artifact-access.js';
import { route, type RouteDef } from '../route.js';
import { uuid } from '../../kernel/json/schemas.js';

const listQuery = pageQuery.extend({
  collection_id: uuid().optional(),
  content_type: z.string().min(1).optional(),
});
const moveBody = z.strictObject({ after_id: uuid('must be a UUID or null').nullable() });

export const artifactRoutes: RouteDef[] = [
  {
    method: 'post',
    path: '/artifacts',
    access: 'artifact:write',
    body: 'json',
    handler: async (ctx) => {
      const doc = await createArtifact(ctx, parse(createArtifactInput, ctx.state.body, 'body'));
      ctx.status = 201;
      ctx.set('Location', `/artifacts/${doc._id}`);
      ctx.set('ETag', etagOf(doc.revision));
      ctx.body = presentArtifact(doc);
    },
  },
  route({
    method: 'get',
    path: '/artifacts',
    access: 'artifact:read',
    query: listQuery,
    handler: async (ctx, q) => {
      const principal = ctx.state.principal!;
      let ids: string[];
      if (q.collection_id) {
        if (!(await ctx.services.containers.find(principal, q.collection_id)))
          throw problems.notFound('workspace or collection', q.collection_id);
        ids = [q.collection_id];
      } else {
        const [workspaces, collections] = await Promise.all([
          ctx.services.containers.visibleIds('workspace', principal),
          ctx.services.containers.visibleIds('collection', principal),
        ]);
        ids = [...workspaces, ...collections];
      }
      const typeLimits = principal.scopes.typeLimits('artifact:read');
      ctx.body = presentPage(
        await ctx.services.artifacts.list(ids, { contentType: q.content_type, typeLimits }, q.limit, q.cursor),
        presentArtifact,
      );
    },
  }),
  {
    method: 'get',
    path: '/artifacts/:id',
    access: 'artifact:read',
    handler: async (ctx) => {
      const id = artifactId(ctx);
      const agent = agentById(id);
      if (agent) ctx.body = agentArtifact(agent);
      else if (isBuiltinServer(id)) ctx.body = builtinArtifact();
      else {
        const { doc } = await visibleArtifact(ctx, id);
        ctx.set('ETag', etagOf(doc.revision));
        ctx.body = presentArtifact(doc);
      }
    },
  },
  {
    method: 'patch',
    path: '/artifacts/:id',
    access: 'artifact:write',
    body: 'json',
    handler: async (ctx) => {
      // If-Match: the edit applies only at that revision (412 with the current one otherwise).
      const doc = await updateArtifact(
        ctx,
        artifactId(ctx),
        parse(artifactPatchInput, ctx.state.body, 'body'),
        ifMatch(ctx.get('If-Match') || undefined),
      );
      ctx.set('ETag', etagOf(doc.revision));
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
      if (after_id === id)
        throw problems.validation('An artifact cannot be moved after itself.', [{ name: 'after_id', reason: 'is the artifact itself' }]);
      const doc = await ctx.services.artifacts.move(current, after_id);
      if (!doc)
        throw problems.validation(`Artifact ${after_id} is not in the same workspace.`, [
          { name: 'after_id', reason: 'not in this workspace' },
        ]);
      await afterWrite(ctx, 'artifact_updated', doc, ['order_key']);
      ctx.body = presentArtifact(doc);
    },
  },
  {
    method: 'delete',
    path: '/artifacts/:id',
    access: 'artifact:manage',
    handler: async (ctx) => {
      await deleteArtifact(ctx, artifactId(ctx), ifMatch(ctx.get('If-Match') || undefined));
      ctx.status = 204;
    },
  },
];
