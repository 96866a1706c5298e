import { z } from 'zod';
import {
  createServerCredential,
  deleteServerCredential,
  listServerCredentials,
  readServerCredential,
  rotateServerCredential,
  serverCredentialBody,
  serverCredentialPatchBody,
  updateServerCredential,
} from '../../operations/server-credentials.js';
import type { AppContext } from '../context.js';
import { parse } from '../validate.js';
import { route, type RouteDef } from '../route.js';
import {
  newServerCredentialSchema,
  presentServerCredential,
  rotatedServerCredentialSchema,
  serverCredentialListSchema,
  serverCredentialSchema,
} from '../../presenters/credentials.js';

/** A client_id as paths and the token endpoint take it: `<chosen>.<namespace>` (or an id made before namespaces). */
const clientId = z.string().regex(/^[A-Za-z0-9._-]{3,128}$/, 'must be 3-128 letters, digits, ".", "_" or "-"');
const params = z.object({ client_id: clientId });
const pathId = (ctx: AppContext) => parse(params, ctx.params, 'path').client_id;

/** Server credentials (SPEC §2.6, §4.1): every operation needs a person's own token (§5.4). */
export const serverCredentialRoutes: RouteDef[] = [
  route({
    method: 'post',
    path: '/server-credentials',
    access: 'human',
    doc: {
      summary: 'Create a server credential (the secret is shown once)',
      status: 201,
      errors: [409],
      response: newServerCredentialSchema,
    },
    body: 'json',
    request: serverCredentialBody,
    handler: async (ctx, _query, body) => {
      const { doc, secret } = await createServerCredential(ctx, body());
      ctx.status = 201;
      ctx.set('Cache-Control', 'no-store');
      ctx.body = { ...presentServerCredential(doc, ctx.services.config.apiUri), client_secret: secret };
    },
  }),
  route({
    method: 'get',
    path: '/server-credentials',
    access: 'human',
    doc: { summary: 'List your server credentials', response: serverCredentialListSchema },
    handler: async (ctx) => {
      ctx.body = { items: (await listServerCredentials(ctx)).map((d) => presentServerCredential(d, ctx.services.config.apiUri)) };
    },
  }),
  route({
    method: 'get',
    path: '/server-credentials/:client_id',
    access: 'human',
    doc: { summary: 'Read a server credential', response: serverCredentialSchema },
    handler: async (ctx) => {
      ctx.body = presentServerCredential(await readServerCredential(ctx, pathId(ctx)), ctx.services.config.apiUri);
    },
  }),
  route({
    method: 'patch',
    path: '/server-credentials/:client_id',
    access: 'human',
    doc: { summary: 'Edit a server credential', example: { active: false }, response: serverCredentialSchema },
    body: 'json',
    request: serverCredentialPatchBody,
    handler: async (ctx, _query, body) => {
      const patch = body();
      ctx.body = presentServerCredential(await updateServerCredential(ctx, pathId(ctx), patch), ctx.services.config.apiUri);
    },
  }),
  route({
    method: 'post',
    path: '/server-credentials/:client_id/rotate',
    access: 'human',
    doc: { summary: "Rotate a server credential's secret (shown once)", response: rotatedServerCredentialSchema },
    handler: async (ctx) => {
      const { clientId, secret } = await rotateServerCredential(ctx, pathId(ctx));
      ctx.set('Cache-Control', 'no-store');
      ctx.body = { client_id: clientId, client_secret: secret, rotated_at: new Date().toISOString() };
    },
  }),
  route({
    method: 'delete',
    path: '/server-credentials/:client_id',
    access: 'human',
    doc: { summary: 'Delete a server credential' },
    handler: async (ctx) => {
      await deleteServerCredential(ctx, pathId(ctx));
      ctx.status = 204;
    },
  }),
];
