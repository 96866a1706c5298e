import { z } from 'zod';
import { problems } from '../../errors/problem.js';
import type { ContainerKind } from '../../store/containers.js';
import { defaultPageSize, maxPageSize } from '../../store/pagination.js';
import { presentContainer, presentPage } from '../presenters.js';
import { idParam, parse } from '../validate.js';
import type { RouteDef } from './route.js';

const fields = {
  name: z.string().trim().min(1).max(200),
  description: z.string().max(10_000),
  metadata: z.record(z.string(), z.unknown()),
};
const createBody = z.strictObject({ name: fields.name, description: fields.description.optional(), metadata: fields.metadata.optional() });
const patchBody = createBody
  .partial()
  .refine((b) => Object.keys(b).length > 0, 'must change at least one of name, description, metadata');
export const pageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(maxPageSize).default(defaultPageSize),
  cursor: z.string().min(1).optional(),
});

/** Workspaces and collections have the same REST surface (collection metadata is edited here, never over MCP). */
export function containerRoutes(kind: ContainerKind): RouteDef[] {
  const base = kind === 'workspace' ? '/workspaces' : '/collections';
  return [
    {
      method: 'post',
      path: base,
      access: 'artifact:write',
      body: 'json',
      handler: async (ctx) => {
        const input = parse(createBody, ctx.state.body, 'body');
        ctx.status = 201;
        ctx.body = presentContainer(await ctx.services.containers.create(kind, ctx.state.principal!, input));
      },
    },
    {
      method: 'get',
      path: base,
      access: 'artifact:read',
      handler: async (ctx) => {
        const { limit, cursor } = parse(pageQuery, ctx.query, 'query');
        ctx.body = presentPage(await ctx.services.containers.list(kind, ctx.state.principal!, limit, cursor), presentContainer);
      },
    },
    {
      method: 'get',
      path: `${base}/:id`,
      access: 'artifact:read',
      handler: async (ctx) => {
        const { id } = parse(idParam, ctx.params, 'path');
        const doc = await ctx.services.containers.get(kind, ctx.state.principal!, id);
        if (!doc) throw problems.notFound(kind, id);
        ctx.body = presentContainer(doc);
      },
    },
    {
      method: 'patch',
      path: `${base}/:id`,
      access: 'artifact:write',
      body: 'json',
      handler: async (ctx) => {
        const { id } = parse(idParam, ctx.params, 'path');
        const patch = parse(patchBody, ctx.state.body, 'body');
        const doc = await ctx.services.containers.update(kind, ctx.state.principal!, id, patch);
        if (!doc) throw problems.notFound(kind, id);
        ctx.body = presentContainer(doc);
      },
    },
  ];
}
