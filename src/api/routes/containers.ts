import { z } from 'zod';
import { problems } from '../../kernel/errors/problem.js';
import type { ContainerDoc, ContainerKind } from '../../store/containers.js';
import { presentContainer, presentPage } from '../../presenters/index.js';
import { flagsSchema, grantsOf, requireGrant, type GrantFlag } from '../../identity/grants.js';
import type { AppContext } from '../context.js';
import { idParam, pageQuery, parse } from '../validate.js';
import { route, type RouteDef } from '../route.js';
import { storableObject, uuid } from '../../kernel/json/schemas.js';

const fields = {
  name: z.string().trim().min(1).max(200),
  description: z.string().max(10_000),
  metadata: storableObject,
};
const createBody = z.strictObject({ name: fields.name, description: fields.description.optional(), metadata: fields.metadata.optional() });
const patchBody = createBody.partial().refine((b) => Object.keys(b).length > 0, 'must change at least one of name, description, metadata');

const shareBody = z.strictObject({ person_id: z.uuid({ error: 'must be a person id (UUID)' }), flags: flagsSchema.default('RS') });
const shareParams = z.object({ id: uuid(), person_id: uuid() });

/** The container, visible to the principal and administrable by its person (A grant), or 404/403. */
async function administrable(ctx: AppContext, kind: ContainerKind, id: string) {
  const doc = await ctx.services.containers.get(kind, ctx.state.principal!, id);
  if (!doc) throw problems.notFound(kind, id);
  requireGrant(doc, ctx.state.principal!, 'A');
  return doc;
}

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
      doc: { summary: `Create a ${kind}`, status: 201, example: { name: 'Research', description: 'Notes and sources' } },
      body: 'json',
      request: createBody,
      handler: async (ctx, _query, body) => {
        const input = body();
        ctx.status = 201;
        ctx.body = presentContainer(await ctx.services.containers.create(kind, ctx.state.principal!, input));
      },
    }),
    route({
      method: 'get',
      path: base,
      access: 'artifact:read',
      doc: { summary: `List the ${kind}s you can see` },
      query: pageQuery,
      handler: async (ctx, { limit, cursor }) => {
        ctx.body = presentPage(await ctx.services.containers.list(kind, ctx.state.principal!, limit, cursor), presentContainer);
      },
    }),
    {
      method: 'get',
      path: `${base}/:id`,
      access: 'artifact:read',
      doc: { summary: `Read a ${kind}` },
      handler: async (ctx) => {
        const { id } = parse(idParam, ctx.params, 'path');
        const doc = await ctx.services.containers.get(kind, ctx.state.principal!, id);
        if (!doc) throw problems.notFound(kind, id);
        ctx.body = presentContainer(doc);
      },
    },
    route({
      method: 'patch',
      path: `${base}/:id`,
      access: 'artifact:write',
      doc: { summary: `Rename or describe a ${kind}`, example: { description: 'Updated' } },
      body: 'json',
      request: patchBody,
      handler: async (ctx, _query, body) => {
        const { id } = parse(idParam, ctx.params, 'path');
        const patch = body();
        const current = await ctx.services.containers.get(kind, ctx.state.principal!, id);
        if (!current) throw problems.notFound(kind, id);
        requireGrant(current, ctx.state.principal!, 'U');
        ctx.body = presentContainer((await ctx.services.containers.update(kind, id, patch))!);
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
      doc: { summary: `List a ${kind}'s shares` },
      handler: async (ctx) => {
        const { id } = parse(idParam, ctx.params, 'path');
        const doc = await administrable(ctx, kind, id);
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
      },
      body: 'json',
      request: shareBody,
      handler: async (ctx, _query, body) => {
        const { id } = parse(idParam, ctx.params, 'path');
        const share = body();
        ctx.body = await grantShare(ctx, kind, id, share);
      },
    }),
    {
      method: 'delete',
      path: `${base}/:id/shares/:person_id`,
      access: 'artifact:manage',
      doc: { summary: `Stop sharing a ${kind} with a person` },
      handler: async (ctx) => {
        const { id, person_id } = parse(shareParams, ctx.params, 'path');
        const doc = await administrable(ctx, kind, id);
        if (!doc.shares.some((s) => s.person_id === person_id)) throw problems.notFound('share', person_id);
        await ctx.services.containers.unshare(kind, id, person_id, (latest) => mayChangeGrantOf(ctx, latest, person_id));
        ctx.status = 204;
      },
    },
  ];
}

/**
 * Whether the caller may change or remove `personId`'s grant, on the container's shares as they are
 * now (asked again on every attempt of the change): they administer it (A), and an owner's grant (O)
 * is changed only by an owner. The creator (`owner_id`) is never a share, so a container always keeps
 * an owner; a co-owner may step down.
 */
function mayChangeGrantOf(ctx: AppContext, doc: ContainerDoc, personId: string): void {
  const principal = ctx.state.principal!;
  requireGrant(doc, principal, 'A');
  const target = doc.shares.find((s) => s.person_id === personId);
  if (target?.flags.includes('O') && !grantsOf(doc, principal.subject).has('O')) {
    throw problems.forbidden(`Only an owner may change or remove the grant of an owner of ${doc.kind} ${doc._id}.`);
  }
}

/** Shares a container with a person, within what the caller may hand out. */
async function grantShare(ctx: AppContext, kind: ContainerKind, id: string, share: z.infer<typeof shareBody>) {
  const doc = await administrable(ctx, kind, id);
  if (share.person_id === doc.owner_id)
    throw problems.validation('The owner already holds every grant.', [{ name: 'person_id', reason: 'is the owner' }]);
  const allowed = (latest: ContainerDoc) => {
    // An administrator who is not an owner hands out only flags they hold, and never O.
    const held = grantsOf(latest, ctx.state.principal!.subject);
    const beyond = [...share.flags].filter((f) => !held.has(f as GrantFlag));
    if (beyond.length > 0) throw problems.forbidden(`You cannot grant ${beyond.join('')}: you do not hold it.`);
    mayChangeGrantOf(ctx, latest, share.person_id);
  };
  allowed(doc);
  if (!(await ctx.services.users.findById(share.person_id))) {
    throw problems.validation(`No person with id ${share.person_id}.`, [{ name: 'person_id', reason: 'unknown person' }]);
  }
  const updated = (await ctx.services.containers.share(kind, id, share, allowed))!;
  return { owner_id: updated.owner_id, items: updated.shares };
}
