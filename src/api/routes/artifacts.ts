import { isBuiltinServer } from '../../operations/builtin-servers.js';
import { builtinArtifact } from '../../mcp-server/builtin.js';
import { agentArtifact, agentById } from '../../invocations/agents/registry.js';
import { z } from 'zod';
import { problems } from '../../kernel/errors/problem.js';
import {
  afterApiWrite,
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
import { pageQuery } from '../validate.js';
import { artifactId } from '../artifact-access.js';
import { route, type RouteDef } from '../route.js';
import { uuid } from '../../kernel/json/schemas.js';

const listQuery = pageQuery.extend({
  collection_id: uuid().optional(),
  content_type: z.string().min(1).optional(),
});
const moveBody = z.strictObject({ after_id: uuid('must be a UUID or null').nullable() });

export const artifactRoutes: RouteDef[] = [
  route({
    method: 'post',
    path: '/artifacts',
    access: 'artifact:write',
    doc: {
      summary: 'Create a draft artifact in a workspace',
      status: 201,
      errors: [409],
      example: { title: 'Notes', content_type: 'text/markdown', content: '# Notes', collection_id: '0190c1d2-7a4b-7c3d-8e9f-0a1b2c3d4e5f' },
    },
    body: 'json',
    request: createArtifactInput,
    handler: async (ctx, _query, body) => {
      const doc = await createArtifact(ctx, body());
      ctx.status = 201;
      ctx.set('Location', `/artifacts/${doc._id}`);
      ctx.set('ETag', etagOf(doc.revision));
      ctx.body = presentArtifact(doc);
    },
  }),
  route({
    method: 'get',
    path: '/artifacts',
    access: 'artifact:read',
    doc: { summary: 'List artifacts you can read' },
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
    doc: { summary: 'Read an artifact (ETag: its revision)' },
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
  route({
    method: 'patch',
    path: '/artifacts/:id',
    access: 'artifact:write',
    doc: { summary: 'Edit a draft (If-Match: the revision it applies to)', errors: [409, 412], example: { title: 'Notes, revised' } },
    body: 'json',
    request: artifactPatchInput,
    handler: async (ctx, _query, body) => {
      // If-Match: the edit applies only at that revision (412 with the current one otherwise).
      const doc = await updateArtifact(ctx, artifactId(ctx), body(), ifMatch(ctx.get('If-Match') || undefined));
      ctx.set('ETag', etagOf(doc.revision));
      ctx.body = presentArtifact(doc);
    },
  }),
  route({
    method: 'post',
    path: '/artifacts/:id/move',
    access: 'artifact:write',
    doc: { summary: 'Move a draft after another in its workspace', errors: [409], example: { after_id: null } },
    body: 'json',
    request: moveBody,
    handler: async (ctx, _query, body) => {
      const id = artifactId(ctx);
      const { after_id } = body();
      const { doc: current } = await editableDraft(ctx, id);
      if (after_id === id)
        throw problems.validation('An artifact cannot be moved after itself.', [{ name: 'after_id', reason: 'is the artifact itself' }]);
      const doc = await ctx.services.artifacts.move(current, after_id);
      if (!doc)
        throw problems.validation(`Artifact ${after_id} is not in the same workspace.`, [
          { name: 'after_id', reason: 'not in this workspace' },
        ]);
      await afterApiWrite(ctx, 'artifact_updated', doc, ['order_key']);
      ctx.body = presentArtifact(doc);
    },
  }),
  {
    method: 'delete',
    path: '/artifacts/:id',
    access: 'artifact:manage',
    doc: { summary: 'Delete a draft (If-Match: the revision it applies to)', errors: [409, 412] },
    handler: async (ctx) => {
      await deleteArtifact(ctx, artifactId(ctx), ifMatch(ctx.get('If-Match') || undefined));
      ctx.status = 204;
    },
  },
];
