import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { principalFromApiKey } from '../../identity/credentials.js';
import { randomBase62, sha256 } from '../../kernel/crypto/opaque.js';
import { resourceFiltersSchema, scopeList } from '../../identity/principal.js';
import { TokenError } from '../../identity/tokens.js';
import { problems } from '../../kernel/errors/problem.js';
import type { ApiKeyDoc } from '../../store/api-keys.js';
import { limitCredentialExchange } from '../middleware/rate-limit.js';
import { parse } from '../validate.js';
import { route, type RouteDef } from '../route.js';

const createBody = z.strictObject({
  name: z.string().trim().min(1).max(200),
  scopes: scopeList,
  resource_filters: resourceFiltersSchema.default({ workspaces: '*', collections: '*' }),
});
const exchangeBody = z.strictObject({ api_key: z.string().min(1).max(200) });
const idParam = z.object({ id: z.string().regex(/^[0-9a-f]{32}$/, 'must be an API key id') });

/** Exchanged tokens are short-lived: the key stays the long-lived credential. */
export const exchangedTokenSeconds = 900;

function present(doc: ApiKeyDoc) {
  return {
    id: doc._id,
    name: doc.name,
    scopes: doc.scopes,
    resource_filters: doc.resource_filters,
    created_at: doc.created_at.toISOString(),
    last_used_at: doc.last_used_at?.toISOString() ?? null,
  };
}

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
    },
    body: 'json',
    request: createBody,
    handler: async (ctx, _query, body) => {
      const input = body();
      const id = randomBytes(16).toString('hex');
      const secret = randomBase62(32);
      const doc: ApiKeyDoc = {
        _id: id,
        name: input.name,
        scopes: input.scopes,
        resource_filters: input.resource_filters,
        secret_sha256: sha256(secret),
        owner_id: ctx.state.principal!.subject,
        created_at: new Date(),
        last_used_at: null,
      };
      await ctx.services.apiKeys.create(doc);
      ctx.status = 201;
      ctx.set('Cache-Control', 'no-store');
      ctx.body = { ...present(doc), key: `pk_${id}_${secret}` };
    },
  }),
  {
    method: 'get',
    path: '/api-keys',
    access: 'human',
    doc: { summary: 'List your API keys' },
    handler: async (ctx) => {
      ctx.body = { items: (await ctx.services.apiKeys.listOwned(ctx.state.principal!.subject)).map(present) };
    },
  },
  {
    method: 'delete',
    path: '/api-keys/:id',
    access: 'human',
    doc: { summary: 'Revoke an API key' },
    handler: async (ctx) => {
      const { id } = parse(idParam, ctx.params, 'path');
      if (!(await ctx.services.apiKeys.delete(id, ctx.state.principal!.subject))) throw problems.notFound('API key', id);
      await ctx.services.consents.forgetCredential('api_key', id);
      ctx.status = 204;
    },
  },
  route({
    method: 'post',
    path: '/api-keys/exchange',
    access: 'public',
    doc: { summary: 'Exchange an API key for a short-lived access token', example: { api_key: 'pk_<id>_<secret>' } },
    guard: limitCredentialExchange,
    body: 'json',
    request: exchangeBody,
    handler: async (ctx, _query, body) => {
      const { api_key } = body();
      let principal;
      try {
        principal = await principalFromApiKey(ctx.services, api_key);
      } catch (err) {
        if (err instanceof TokenError) throw problems.unauthorized('The API key is not valid.');
        throw err;
      }
      await ctx.services.apiKeys.touch(principal.actor.id);
      const scope = principal.scopes.toJSON().join(' ');
      ctx.set('Cache-Control', 'no-store');
      ctx.body = {
        ...(await ctx.services.tokens.issue(
          principal.subject,
          { kind: 'api_key', akid: principal.actor.id, scope },
          exchangedTokenSeconds,
        )),
        scope,
      };
    },
  }),
];
