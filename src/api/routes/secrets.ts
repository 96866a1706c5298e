import { deleteSecret, listSecrets, readSecret, secretBody, storeSecret } from '../../operations/secrets.js';
import { idParam, parse } from '../validate.js';
import { route, type RouteDef } from '../route.js';
import { presentSecret, secretListSchema, secretSchema } from '../../presenters/credentials.js';

/** Secrets (SPEC §2.3 rule 3, §4.1), owned by the person who stored them. */
export const secretRoutes: RouteDef[] = [
  route({
    method: 'post',
    path: '/secrets',
    access: 'artifact:write',
    doc: {
      summary: 'Store a secret (never returned)',
      status: 201,
      example: { name: 'crm-token', value: 's3cret' },
      response: secretSchema,
    },
    body: 'json',
    request: secretBody,
    handler: async (ctx, _query, body) => {
      const doc = await storeSecret(ctx, body());
      ctx.status = 201;
      ctx.body = presentSecret(doc);
    },
  }),
  {
    method: 'get',
    path: '/secrets',
    access: 'artifact:read',
    doc: { summary: 'List your secrets (names only)', response: secretListSchema },
    handler: async (ctx) => {
      ctx.body = { items: (await listSecrets(ctx)).map(presentSecret) };
    },
  },
  {
    method: 'get',
    path: '/secrets/:id',
    access: 'artifact:read',
    doc: { summary: "Read a secret's name", response: secretSchema },
    handler: async (ctx) => {
      const { id } = parse(idParam, ctx.params, 'path');
      ctx.body = presentSecret(await readSecret(ctx, id));
    },
  },
  {
    method: 'delete',
    path: '/secrets/:id',
    access: 'artifact:manage',
    doc: { summary: 'Delete a secret' },
    handler: async (ctx) => {
      const { id } = parse(idParam, ctx.params, 'path');
      await deleteSecret(ctx, id);
      ctx.status = 204;
    },
  },
];
