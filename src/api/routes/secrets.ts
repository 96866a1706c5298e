import { z } from 'zod';
import { problems } from '../../kernel/errors/problem.js';
import type { SecretDoc } from '../../store/secrets.js';
import { idParam, parse } from '../validate.js';
import { route, type RouteDef } from '../route.js';

const createBody = z.strictObject({
  name: z.string().trim().min(1).max(200),
  value: z
    .string()
    .min(1)
    .max(64 * 1024),
});

/** Never the value: it is returned by no endpoint, ever. */
function present(doc: SecretDoc) {
  return { id: doc._id, name: doc.name, created_at: doc.created_at.toISOString() };
}

/** Secrets (SPEC §2.3 rule 3, §4.1), owned by the person who stored them. */
export const secretRoutes: RouteDef[] = [
  route({
    method: 'post',
    path: '/secrets',
    access: 'artifact:write',
    doc: { summary: 'Store a secret (never returned)', status: 201, example: { name: 'crm-token', value: 's3cret' } },
    body: 'json',
    request: createBody,
    handler: async (ctx, _query, body) => {
      const { name, value } = body();
      ctx.status = 201;
      ctx.body = present(await ctx.services.secrets.create(ctx.state.principal!.subject, name, value));
    },
  }),
  {
    method: 'get',
    path: '/secrets',
    access: 'artifact:read',
    doc: { summary: 'List your secrets (names only)' },
    handler: async (ctx) => {
      ctx.body = { items: (await ctx.services.secrets.list(ctx.state.principal!.subject)).map(present) };
    },
  },
  {
    method: 'get',
    path: '/secrets/:id',
    access: 'artifact:read',
    doc: { summary: "Read a secret's name" },
    handler: async (ctx) => {
      const { id } = parse(idParam, ctx.params, 'path');
      const doc = await ctx.services.secrets.get(ctx.state.principal!.subject, id);
      if (!doc) throw problems.notFound('secret', id);
      ctx.body = present(doc);
    },
  },
  {
    method: 'delete',
    path: '/secrets/:id',
    access: 'artifact:manage',
    doc: { summary: 'Delete a secret' },
    handler: async (ctx) => {
      const { id } = parse(idParam, ctx.params, 'path');
      if (!(await ctx.services.secrets.delete(ctx.state.principal!.subject, id))) throw problems.notFound('secret', id);
      ctx.status = 204;
    },
  },
];
