import { z } from 'zod';
import { commitStates } from '../../store/commits.js';
import {
  approveBody,
  commitBody,
  decide,
  listCommitItems,
  listCommits,
  presentWithItems,
  previewBody,
  previewCommit,
  rejectBody,
  requestCommit,
  visibleCommit,
} from '../../operations/commits.js';
import {
  commitItemSchema,
  commitPreviewSchema,
  commitSchema,
  presentCommit,
  presentCommitItem,
  presentPage,
} from '../../presenters/index.js';
import { idempotencyKeyOf, idParam, pageQuery, parse } from '../validate.js';
import { route, type RouteDef } from '../route.js';
import { uuid } from '../../kernel/json/schemas.js';
import { byStatus } from '../openapi/responses.js';
import { page } from '../../presenters/schemas.js';

const listQuery = pageQuery.extend({
  workspace_id: uuid().optional(),
  state: z.enum(commitStates).optional(),
});

export const commitRoutes: RouteDef[] = [
  route({
    method: 'post',
    path: '/workspaces/:id/commit-preview',
    access: 'artifact:read',
    doc: { summary: 'Preview what committing the workspace would change', response: commitPreviewSchema },
    body: 'json',
    request: previewBody,
    handler: async (ctx, _query, body) => {
      const { id } = parse(idParam, ctx.params, 'path');
      ctx.body = await previewCommit(ctx, id, body());
    },
  }),
  route({
    method: 'post',
    path: '/workspaces/:id/commits',
    access: 'artifact:write',
    doc: {
      summary: 'Request a commit of the workspace into a collection',
      status: 202,
      errors: [409],
      response: byStatus({ 202: commitSchema, 200: commitSchema }),
    },
    body: 'json',
    request: commitBody,
    handler: async (ctx, _query, body) => {
      const { id } = parse(idParam, ctx.params, 'path');
      const input = body();
      const key = idempotencyKeyOf(ctx) ?? null;
      const { created, commit } = await requestCommit(ctx, id, input, key);
      ctx.status = created ? 202 : 200;
      ctx.set('Location', `/commits/${commit.id}`);
      ctx.body = commit;
    },
  }),
  route({
    method: 'get',
    path: '/commits',
    access: 'artifact:read',
    doc: { summary: 'List commits', response: page(commitSchema) },
    query: listQuery,
    handler: async (ctx, q) => {
      ctx.body = presentPage(await listCommits(ctx, { workspaceId: q.workspace_id, state: q.state }, q.limit, q.cursor), (doc) =>
        presentCommit(doc, null),
      );
    },
  }),
  {
    method: 'get',
    path: '/commits/:id',
    access: 'artifact:read',
    doc: { summary: 'Read a commit: state, preview, progress, results', response: commitSchema },
    handler: async (ctx) => {
      ctx.body = await presentWithItems(ctx, await visibleCommit(ctx, parse(idParam, ctx.params, 'path').id));
    },
  },
  route({
    method: 'get',
    path: '/commits/:id/items',
    access: 'artifact:read',
    doc: { summary: "List a commit's items", response: page(commitItemSchema) },
    query: pageQuery,
    handler: async (ctx, { limit, cursor }) => {
      const page = await listCommitItems(ctx, parse(idParam, ctx.params, 'path').id, limit, cursor);
      ctx.body = presentPage(page, (item) => presentCommitItem(item, true));
    },
  }),
  route({
    method: 'post',
    path: '/commits/:id/approve',
    access: 'human',
    doc: { summary: 'Approve a commit awaiting approval', errors: [409], example: { comment: 'Looks good' }, response: commitSchema },
    body: 'json',
    request: approveBody,
    handler: async (ctx, _query, body) => {
      ctx.body = await decide(ctx, parse(idParam, ctx.params, 'path').id, 'approve', body().comment ?? null);
    },
  }),
  route({
    method: 'post',
    path: '/commits/:id/reject',
    access: 'human',
    doc: { summary: 'Reject a commit awaiting approval', errors: [409], example: { comment: 'not yet' }, response: commitSchema },
    body: 'json',
    request: rejectBody,
    handler: async (ctx, _query, body) => {
      ctx.body = await decide(ctx, parse(idParam, ctx.params, 'path').id, 'reject', body().comment);
    },
  }),
];
