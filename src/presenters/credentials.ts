/**
 * People, their tokens and the credentials that act for them: what the identity routes answer.
 * A secret (a client secret, an API key, a webhook secret) is shown once, by the answer that made it.
 */
import { z } from 'zod';
import type { ApiKeyDoc } from '../store/api-keys.js';
import type { ConsentDoc } from '../store/consents.js';
import type { SecretDoc } from '../store/secrets.js';
import type { ServerCredentialDoc } from '../store/server-credentials.js';
import { actorSchema, list, openObject, resourceFiltersSchema, timestamp } from './schemas.js';

/** `GET /me`: who the token stands for. */
export const meSchema = z
  .object({
    id: z.string().describe("The person's id (the token's subject)."),
    email: z.string().optional().describe("Only to the person's own token."),
    is_admin: z.boolean(),
    actor: actorSchema,
    scopes: z.array(z.string()),
  })
  .meta({ id: 'Me' });

export const userSchema = z
  .object({ id: z.string(), email: z.string(), is_admin: z.boolean(), created_at: timestamp })
  .meta({ id: 'User' });
export const unlockedUserSchema = z.object({ id: z.string(), email: z.string(), unlocked_at: timestamp }).meta({ id: 'UnlockedUser' });

/** The public keys that sign access tokens (RFC 7517). */
export const jwksSchema = z.object({ keys: z.array(openObject) }).meta({ id: 'Jwks' });
export const rotatedSigningKeySchema = z.object({ kid: z.string(), jwks: jwksSchema }).meta({ id: 'RotatedSigningKey' });

export const serverCredentialSchema = z
  .object({
    client_id: z.string(),
    name: z.string(),
    server_id: z.string(),
    host_id: z.string(),
    authority: z.string().describe('Where its tokens are issued (this API).'),
    scopes: z.array(z.string()),
    resource_filters: resourceFiltersSchema,
    active: z.boolean(),
    created_time: timestamp,
    last_used_at: timestamp.nullable(),
  })
  .meta({ id: 'ServerCredential' });
export const newServerCredentialSchema = serverCredentialSchema
  .extend({ client_secret: z.string().describe('Shown once.') })
  .meta({ id: 'NewServerCredential' });
export const serverCredentialListSchema = list(serverCredentialSchema);
export const rotatedServerCredentialSchema = z
  .object({ client_id: z.string(), client_secret: z.string(), rotated_at: timestamp })
  .meta({ id: 'RotatedServerCredential' });

export const apiKeySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    scopes: z.array(z.string()),
    resource_filters: resourceFiltersSchema,
    created_at: timestamp,
    last_used_at: timestamp.nullable(),
  })
  .meta({ id: 'ApiKey' });
export const newApiKeySchema = apiKeySchema
  .extend({ key: z.string().describe('`pk_<id>_<secret>`, shown once.') })
  .meta({ id: 'NewApiKey' });
export const apiKeyListSchema = list(apiKeySchema);

/** A person's consent that a credential act for them (X-On-Behalf-Of), or an OAuth client's grant. */
export const consentSchema = z
  .object({
    credential_kind: z.enum(['server_credential', 'api_key', 'oauth_client']),
    credential_id: z.string(),
    created_at: timestamp,
    client_name: z.string().optional(),
    scopes: z.array(z.string()).optional(),
    resource_filters: resourceFiltersSchema.optional(),
  })
  .meta({ id: 'Consent' });
export const consentListSchema = list(consentSchema);

/** A stored secret: its name, never its value. */
export const secretSchema = z.object({ id: z.string(), name: z.string(), created_at: timestamp }).meta({ id: 'Secret' });
export const secretListSchema = list(secretSchema);

/** A server credential as its owner sees it: never its secret hash (the secret is shown once, by the answer that made it). */
export function presentServerCredential(doc: ServerCredentialDoc, authority: string): z.output<typeof serverCredentialSchema> {
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

export function presentApiKey(doc: ApiKeyDoc): z.output<typeof apiKeySchema> {
  return {
    id: doc._id,
    name: doc.name,
    scopes: doc.scopes,
    resource_filters: doc.resource_filters,
    created_at: doc.created_at.toISOString(),
    last_used_at: doc.last_used_at?.toISOString() ?? null,
  };
}

export function presentConsent(doc: ConsentDoc): z.output<typeof consentSchema> {
  return {
    credential_kind: doc.credential_kind,
    credential_id: doc.credential_id,
    created_at: doc.created_at.toISOString(),
    ...(doc.oauth ? { client_name: doc.oauth.client_name, scopes: doc.oauth.scopes, resource_filters: doc.oauth.filters } : {}),
  };
}

/** Never the value: it is returned by no endpoint, ever. */
export function presentSecret(doc: SecretDoc): z.output<typeof secretSchema> {
  return { id: doc._id, name: doc.name, created_at: doc.created_at.toISOString() };
}
