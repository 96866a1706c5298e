import { z } from 'zod';
import { commitStates } from '../../store/commits.js';
import {
  approveBody,
  commitBody,
  decide,
  listCommits,
  presentWithItems,
  previewBody,
  previewCommit,
  readable,
  rejectBody,
  requestCommit,
  visibleCommit,
} from '../../operations/commits.js';
import { presentCommit, presentCommitItem, presentPage } from '../../presenters/index.js';
import { idempotencyKeyOf, idParam, pageQuery, parse } from '../validate.js';
import { route, type RouteDef } from '../route.js';
import { uuid } from '../../kernel/json/schemas.js';

const listQuery = pageQuery.extend({
  workspace_id: uuid().optional(),
  state: z.enum(commitStates).optional(),
});

export const commitRoutes: RouteDef[] = [
  {
    method: 'post',
    path: '/workspaces/:id/commit-preview',
    access: 'artifact:read',
    body: 'json',
    handler: async (ctx) => {
      const { id } = parse(idParam, ctx.params, 'path');
      ctx.body = await previewCommit(ctx, id, parse(previewBody, ctx.state.body, 'body'));
    },
  },
  {
    method: 'post',
    path: '/workspaces/:id/commits',
    access: 'artifact:write',
    body: 'json',
    handler: async (ctx) => {
      const { id } = parse(idParam, ctx.params, 'path');
      const body = parse(commitBody, ctx.state.body, 'body');
      const key = idempotencyKeyOf(ctx) ?? null;
      const { created, commit } = await requestCommit(ctx, id, body, key);
      ctx.status = created ? 202 : 200;
      ctx.set('Location', `/commits/${commit.id}`);
      ctx.body = commit;
    },
  },
  route({
    method: 'get',
    path: '/commits',
    access: 'artifact:read',
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
    handler: async (ctx) => {
      ctx.body = await presentWithItems(ctx, await visibleCommit(ctx, parse(idParam, ctx.params, 'path').id));
    },
  },
  route({
    method: 'get',
    path: '/commits/:id/items',
    access: 'artifact:read',
    query: pageQuery,
    handler: async (ctx, { limit, cursor }) => {
      const commit = await visibleCommit(ctx, parse(idParam, ctx.params, 'path').id);
      const page = await ctx.services.commits.items(commit, limit, cursor);
      ctx.body = presentPage({ ...page, items: page.items.filter(readable(ctx)) }, (item) => presentCommitItem(item, true));
    },
  }),
  {
    method: 'post',
    path: '/commits/:id/approve',
    access: 'human',
    body: 'json',
    handler: async (ctx) => {
      ctx.body = await decide(
        ctx,
        parse(idParam, ctx.params, 'path').id,
        'approve',
        parse(approveBody, ctx.state.body ?? {}, 'body').comment ?? null,
      );
    },
  },
  {
    method: 'post',
    path: '/commits/:id/reject',
    access: 'human',
    body: 'json',
    handler: async (ctx) => {
      ctx.body = await decide(ctx, parse(idParam, ctx.params, 'path').id, 'reject', parse(rejectBody, ctx.state.body, 'body').comment);
    },
  },
];
