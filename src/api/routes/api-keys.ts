import { z } from 'zod';
import { apiKeyBody, createApiKey, exchangeApiKey, listApiKeys, revokeApiKey } from '../../operations/api-keys.js';
import { limitCredentialExchange } from '../middleware/rate-limit.js';
import { parse } from '../validate.js';
import { route, type RouteDef } from '../route.js';
import { tokenSchema } from '../../presenters/schemas.js';
import { apiKeyListSchema, newApiKeySchema, presentApiKey } from '../../presenters/credentials.js';

const exchangeBody = z.strictObject({ api_key: z.string().min(1).max(200) });
const idParam = z.object({ id: z.string().regex(/^[0-9a-f]{32}$/, 'must be an API key id') });

/** API keys (SPEC §2.7, §5.3): a person creates, lists and revokes their own. */
export const apiKeyRoutes: RouteDef[] = [
  route({
    method: 'post',
    path: '/api-keys',
    access: 'human',
    doc: {
      summary: 'Create an API key (the key is shown once)',
      status: 201,
      example: { name: 'CI export', scopes: ['artifact:read', 'search:read'] },
      response: newApiKeySchema,
    },
    body: 'json',
    request: apiKeyBody,
    handler: async (ctx, _query, body) => {
      const { doc, key } = await createApiKey(ctx, body());
      ctx.status = 201;
      ctx.set('Cache-Control', 'no-store');
      ctx.body = { ...presentApiKey(doc), key };
    },
  }),
  route({
    method: 'get',
    path: '/api-keys',
    access: 'human',
    doc: { summary: 'List your API keys', response: apiKeyListSchema },
    handler: async (ctx) => {
      ctx.body = { items: (await listApiKeys(ctx)).map(presentApiKey) };
    },
  }),
  route({
    method: 'delete',
    path: '/api-keys/:id',
    access: 'human',
    doc: { summary: 'Revoke an API key' },
    handler: async (ctx) => {
      const { id } = parse(idParam, ctx.params, 'path');
      await revokeApiKey(ctx, id);
      ctx.status = 204;
    },
  }),
  route({
    method: 'post',
    path: '/api-keys/exchange',
    access: 'public',
    doc: { summary: 'Exchange an API key for a short-lived access token', example: { api_key: 'pk_<id>_<secret>' }, response: tokenSchema },
    guard: limitCredentialExchange,
    body: 'json',
    request: exchangeBody,
    handler: async (ctx, _query, body) => {
      const { api_key } = body();
      const token = await exchangeApiKey(ctx.services, api_key);
      ctx.set('Cache-Control', 'no-store');
      ctx.body = token;
    },
  }),
];
