import { z } from 'zod';
import type { ContainerKind } from '../../store/containers.js';
import { containerSchema, presentContainer, presentPage, sharesSchema } from '../../presenters/index.js';
import {
  containerBody,
  containerPatchBody,
  createContainer,
  listContainers,
  updateContainer,
  visibleContainer,
} from '../../operations/containers.js';
import { grantShare, listShares, revokeShare, shareBody } from '../../operations/shares.js';
import { idParam, pageQuery, parse } from '../validate.js';
import { route, type RouteDef } from '../route.js';
import { uuid } from '../../kernel/json/schemas.js';
import { page } from '../../presenters/schemas.js';

const shareParams = z.object({ id: uuid(), person_id: uuid() });

/** Workspaces and collections have the same REST surface (collection metadata is edited here, never over MCP). */
export function containerRoutes(kind: ContainerKind): RouteDef[] {
  const base = kind === 'workspace' ? '/workspaces' : '/collections';
  return [...containerCrudRoutes(kind, base), ...shareRoutes(kind, base)];
}

/** Create, list, read and update (name, description, metadata). */
function containerCrudRoutes(kind: ContainerKind, base: string): RouteDef[] {
  return [
    route({
      method: 'post',
      path: base,
      access: 'artifact:write',
      doc: {
        summary: `Create a ${kind}`,
        status: 201,
        example: { name: 'Research', description: 'Notes and sources' },
        response: containerSchema,
      },
      body: 'json',
      request: containerBody,
      handler: async (ctx, _query, body) => {
        const input = body();
        ctx.status = 201;
        ctx.body = presentContainer(await createContainer(ctx, kind, input));
      },
    }),
    route({
      method: 'get',
      path: base,
      access: 'artifact:read',
      doc: { summary: `List the ${kind}s you can see`, response: page(containerSchema) },
      query: pageQuery,
      handler: async (ctx, { limit, cursor }) => {
        ctx.body = presentPage(await listContainers(ctx, kind, limit, cursor), presentContainer);
      },
    }),
    {
      method: 'get',
      path: `${base}/:id`,
      access: 'artifact:read',
      doc: { summary: `Read a ${kind}`, response: containerSchema },
      handler: async (ctx) => {
        const { id } = parse(idParam, ctx.params, 'path');
        ctx.body = presentContainer(await visibleContainer(ctx, kind, id));
      },
    },
    route({
      method: 'patch',
      path: `${base}/:id`,
      access: 'artifact:write',
      doc: { summary: `Rename or describe a ${kind}`, example: { description: 'Updated' }, response: containerSchema },
      body: 'json',
      request: containerPatchBody,
      handler: async (ctx, _query, body) => {
        const { id } = parse(idParam, ctx.params, 'path');
        const patch = body();
        ctx.body = presentContainer(await updateContainer(ctx, kind, id, patch));
      },
    }),
  ];
}

/** Who else may see and do what in a container: listed, granted and revoked by its administrators. */
function shareRoutes(kind: ContainerKind, base: string): RouteDef[] {
  return [
    {
      method: 'get',
      path: `${base}/:id/shares`,
      access: 'artifact:manage',
      doc: { summary: `List a ${kind}'s shares`, response: sharesSchema },
      handler: async (ctx) => {
        const { id } = parse(idParam, ctx.params, 'path');
        const doc = await listShares(ctx, kind, id);
        ctx.body = { owner_id: doc.owner_id, items: doc.shares };
      },
    },
    route({
      method: 'post',
      path: `${base}/:id/shares`,
      access: 'artifact:manage',
      doc: {
        summary: `Share a ${kind} with a person (CRUDEASIO flags)`,
        example: { person_id: '0190c1d2-7a4b-7c3d-8e9f-0a1b2c3d4e5f', flags: 'RS' },
        response: sharesSchema,
      },
      body: 'json',
      request: shareBody,
      handler: async (ctx, _query, body) => {
        const { id } = parse(idParam, ctx.params, 'path');
        const share = body();
        const updated = await grantShare(ctx, kind, id, share);
        ctx.body = { owner_id: updated.owner_id, items: updated.shares };
      },
    }),
    {
      method: 'delete',
      path: `${base}/:id/shares/:person_id`,
      access: 'artifact:manage',
      doc: { summary: `Stop sharing a ${kind} with a person` },
      handler: async (ctx) => {
        const { id, person_id } = parse(shareParams, ctx.params, 'path');
        await revokeShare(ctx, kind, id, person_id);
        ctx.status = 204;
      },
    },
  ];
}
