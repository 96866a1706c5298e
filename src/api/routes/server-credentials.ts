import { z } from 'zod';
import { hashPassword } from '../../identity/passwords.js';
import { randomBase62 } from '../../kernel/crypto/opaque.js';
import { resourceFiltersSchema, scopeList } from '../../identity/principal.js';
import { problems } from '../../kernel/errors/problem.js';
import { namespaceLength, type ServerCredentialDoc } from '../../store/server-credentials.js';
import { isDuplicateKey } from '../../store/mongo.js';
import type { AppContext } from '../context.js';
import { parse } from '../validate.js';
import { route, type RouteDef } from '../route.js';

/** A client_id as paths and the token endpoint take it: `<chosen>.<namespace>` (or an id made before namespaces). */
const clientId = z.string().regex(/^[A-Za-z0-9._-]{3,128}$/, 'must be 3-128 letters, digits, ".", "_" or "-"');
/** The part the creator chooses: qualified by their namespace, it stays within 128 characters. */
const chosenId = z
  .string()
  .regex(new RegExp(`^[A-Za-z0-9._-]{3,${127 - namespaceLength}}$`), `must be 3-${127 - namespaceLength} letters, digits, ".", "_" or "-"`);
const fields = {
  name: z.string().trim().min(1).max(200),
  scopes: scopeList,
  resource_filters: resourceFiltersSchema,
};
const createBody = z.strictObject({
  client_id: chosenId,
  name: fields.name,
  server_id: z.string().min(1).max(200),
  host_id: z.string().min(1).max(200),
  scopes: fields.scopes,
  resource_filters: fields.resource_filters.default({ workspaces: '*', collections: '*' }),
});
const patchBody = z
  .strictObject({ name: fields.name, scopes: fields.scopes, resource_filters: fields.resource_filters, active: z.boolean() })
  .partial()
  .refine((b) => Object.keys(b).length > 0, 'must change at least one of name, scopes, resource_filters, active');
const params = z.object({ client_id: clientId });

/** A new client secret, `scs_<opaque>` (SPEC §2.6): 256 bits, base-62. */
const newSecret = () => `scs_${randomBase62(32)}`;

function present(doc: ServerCredentialDoc, authority: string) {
  return {
    client_id: doc._id,
    name: doc.name,
    server_id: doc.server_id,
    host_id: doc.host_id,
    authority,
    scopes: doc.scopes,
    resource_filters: doc.resource_filters,
    active: doc.active,
    created_time: doc.created_time.toISOString(),
    last_used_at: doc.last_used_at?.toISOString() ?? null,
  };
}

/** Credentials are managed by their creator only; anyone else sees a 404. */
async function owned(ctx: AppContext): Promise<ServerCredentialDoc> {
  const { client_id } = parse(params, ctx.params, 'path');
  const doc = await ctx.services.serverCredentials.get(client_id);
  if (!doc || doc.owner_id !== ctx.state.principal!.subject) throw problems.notFound('server credential', client_id);
  return doc;
}

/** Server credentials (SPEC §2.6, §4.1): every operation needs a person's own token (§5.4). */
export const serverCredentialRoutes: RouteDef[] = [
  route({
    method: 'post',
    path: '/server-credentials',
    access: 'human',
    doc: { summary: 'Create a server credential (the secret is shown once)', status: 201, errors: [409] },
    body: 'json',
    request: createBody,
    handler: async (ctx, _query, body) => {
      const input = body();
      const owner = ctx.state.principal!.subject;
      const secret = newSecret();
      // The chosen name within the creator's own namespace: another person's choice never collides
      // with it, so a 409 tells nobody what anyone else has registered.
      const doc: ServerCredentialDoc = {
        _id: `${input.client_id}.${await ctx.services.serverCredentials.namespaceOf(owner)}`,
        name: input.name,
        server_id: input.server_id,
        host_id: input.host_id,
        scopes: input.scopes,
        resource_filters: input.resource_filters,
        active: true,
        secret_hash: await hashPassword(secret),
        generation: 1,
        owner_id: owner,
        created_time: new Date(),
        last_used_at: null,
      };
      try {
        await ctx.services.serverCredentials.create(doc);
      } catch (err) {
        if (isDuplicateKey(err)) throw problems.conflict('client-id-taken', `You already have a server credential ${doc._id}.`);
        throw err;
      }
      ctx.status = 201;
      ctx.set('Cache-Control', 'no-store');
      ctx.body = { ...present(doc, ctx.services.config.apiUri), client_secret: secret };
    },
  }),
  {
    method: 'get',
    path: '/server-credentials',
    access: 'human',
    doc: { summary: 'List your server credentials' },
    handler: async (ctx) => {
      const docs = await ctx.services.serverCredentials.withUsage(
        await ctx.services.serverCredentials.listOwned(ctx.state.principal!.subject),
      );
      ctx.body = { items: docs.map((d) => present(d, ctx.services.config.apiUri)) };
    },
  },
  {
    method: 'get',
    path: '/server-credentials/:client_id',
    access: 'human',
    doc: { summary: 'Read a server credential' },
    handler: async (ctx) => {
      const [doc] = await ctx.services.serverCredentials.withUsage([await owned(ctx)]);
      ctx.body = present(doc!, ctx.services.config.apiUri);
    },
  },
  route({
    method: 'patch',
    path: '/server-credentials/:client_id',
    access: 'human',
    doc: { summary: 'Edit a server credential', example: { active: false } },
    body: 'json',
    request: patchBody,
    handler: async (ctx, _query, body) => {
      const patch = body();
      const doc = await owned(ctx);
      // Deactivation kills tokens already issued; scope and filter changes apply to them at once anyway.
      const updated = await ctx.services.serverCredentials.update(doc._id, patch, patch.active === false);
      if (!updated) throw problems.notFound('server credential', doc._id);
      ctx.body = present((await ctx.services.serverCredentials.withUsage([updated]))[0]!, ctx.services.config.apiUri);
    },
  }),
  {
    method: 'post',
    path: '/server-credentials/:client_id/rotate',
    access: 'human',
    doc: { summary: "Rotate a server credential's secret (shown once)" },
    handler: async (ctx) => {
      const doc = await owned(ctx);
      const secret = newSecret();
      // The generation moves with the secret: the old secret and every token it got stop at once.
      const updated = await ctx.services.serverCredentials.update(doc._id, { secret_hash: await hashPassword(secret) }, true);
      if (!updated) throw problems.notFound('server credential', doc._id);
      ctx.set('Cache-Control', 'no-store');
      ctx.body = { client_id: doc._id, client_secret: secret, rotated_at: new Date().toISOString() };
    },
  },
  {
    method: 'delete',
    path: '/server-credentials/:client_id',
    access: 'human',
    doc: { summary: 'Delete a server credential' },
    handler: async (ctx) => {
      const doc = await owned(ctx);
      await ctx.services.consents.forgetCredential('server_credential', doc._id);
      await ctx.services.serverCredentials.delete(doc._id);
      ctx.status = 204;
    },
  },
];
