import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { principalFromApiKey, recordUse } from '../identity/credentials.js';
import { resourceFiltersSchema, scopeList } from '../identity/principal.js';
import { TokenError, type IssuedToken } from '../identity/tokens.js';
import { randomBase62, sha256 } from '../kernel/crypto/opaque.js';
import { problems } from '../kernel/errors/problem.js';
import type { ApiKeyDoc } from '../store/api-keys.js';
import type { OperationContext, Services } from './services.js';

/** API keys (SPEC §2.7, §5.3): a person creates, lists and revokes their own; anyone exchanges one for a token. */

export const apiKeyBody = z.strictObject({
  name: z.string().trim().min(1).max(200),
  scopes: scopeList,
  resource_filters: resourceFiltersSchema.default({ workspaces: '*', collections: '*' }),
});

/** Exchanged tokens are short-lived: the key stays the long-lived credential. */
export const exchangedTokenSeconds = 900;

/** Creates a key for the caller: `pk_<id>_<secret>`, answered this once (only its hash is kept). */
export async function createApiKey(ctx: OperationContext, input: z.infer<typeof apiKeyBody>): Promise<{ doc: ApiKeyDoc; key: string }> {
  const id = randomBytes(16).toString('hex');
  const secret = randomBase62(32);
  const doc: ApiKeyDoc = {
    _id: id,
    name: input.name,
    scopes: input.scopes,
    resource_filters: input.resource_filters,
    secret_sha256: sha256(secret),
    owner_id: ctx.state.principal.subject,
    created_at: new Date(),
    last_used_at: null,
  };
  await ctx.services.apiKeys.create(doc);
  return { doc, key: `pk_${id}_${secret}` };
}

export function listApiKeys(ctx: OperationContext): Promise<ApiKeyDoc[]> {
  return ctx.services.apiKeys.listOwned(ctx.state.principal.subject);
}

/** Revokes one of the caller's keys, and the consents people gave it. */
export async function revokeApiKey(ctx: OperationContext, id: string): Promise<void> {
  if (!(await ctx.services.apiKeys.delete(id, ctx.state.principal.subject))) throw problems.notFound('API key', id);
  await ctx.services.consents.forgetCredential('api_key', id);
}

/** An API key for a short-lived access token with the key's scopes (401 for a key that is not valid). */
export async function exchangeApiKey(services: Services, apiKey: string): Promise<IssuedToken & { scope: string }> {
  let principal;
  try {
    principal = await principalFromApiKey(services, apiKey);
  } catch (err) {
    if (err instanceof TokenError) throw problems.unauthorized('The API key is not valid.');
    throw err;
  }
  // Every exchange is recorded (awaited, so the list shows it at once), but never fails the exchange.
  const keyId = principal.actor.id;
  await recordUse(services, `API key ${keyId}`, () => services.apiKeys.touch(keyId));
  const scope = principal.scopes.toJSON().join(' ');
  return {
    ...(await services.tokens.issue(principal.subject, { kind: 'api_key', akid: principal.actor.id, scope }, exchangedTokenSeconds)),
    scope,
  };
}
