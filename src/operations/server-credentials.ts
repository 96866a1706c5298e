import { z } from 'zod';
import { recordUse } from '../identity/credentials.js';
import { decoyHash, hashPassword, verifyPassword } from '../identity/passwords.js';
import { resourceFiltersSchema, scopeList } from '../identity/principal.js';
import type { IssuedToken } from '../identity/tokens.js';
import { randomBase62 } from '../kernel/crypto/opaque.js';
import { problems } from '../kernel/errors/problem.js';
import { isDuplicateKey } from '../store/mongo.js';
import { namespaceLength, type ServerCredentialDoc } from '../store/server-credentials.js';
import type { OperationContext, Services } from './services.js';

/** Server credentials (SPEC §2.6, §4.1): managed by their creator, with a person's own token (§5.4). */

/** The part the creator chooses: qualified by their namespace, it stays within 128 characters. */
const chosenId = z
  .string()
  .regex(new RegExp(`^[A-Za-z0-9._-]{3,${127 - namespaceLength}}$`), `must be 3-${127 - namespaceLength} letters, digits, ".", "_" or "-"`);
const fields = {
  name: z.string().trim().min(1).max(200),
  scopes: scopeList,
  resource_filters: resourceFiltersSchema,
};
export const serverCredentialBody = z.strictObject({
  client_id: chosenId,
  name: fields.name,
  server_id: z.string().min(1).max(200),
  host_id: z.string().min(1).max(200),
  scopes: fields.scopes,
  resource_filters: fields.resource_filters.default({ workspaces: '*', collections: '*' }),
});
export const serverCredentialPatchBody = z
  .strictObject({ name: fields.name, scopes: fields.scopes, resource_filters: fields.resource_filters, active: z.boolean() })
  .partial()
  .refine((b) => Object.keys(b).length > 0, 'must change at least one of name, scopes, resource_filters, active');

/** A new client secret, `scs_<opaque>` (SPEC §2.6): 256 bits, base-62. */
const newSecret = () => `scs_${randomBase62(32)}`;

/** Credentials are managed by their creator only; anyone else sees a 404. */
async function owned(ctx: OperationContext, clientId: string): Promise<ServerCredentialDoc> {
  const doc = await ctx.services.serverCredentials.get(clientId);
  if (!doc || doc.owner_id !== ctx.state.principal.subject) throw problems.notFound('server credential', clientId);
  return doc;
}

/** Creates a credential; its secret is answered this once. */
export async function createServerCredential(
  ctx: OperationContext,
  input: z.infer<typeof serverCredentialBody>,
): Promise<{ doc: ServerCredentialDoc; secret: string }> {
  const { serverCredentials } = ctx.services;
  const owner = ctx.state.principal.subject;
  const secret = newSecret();
  // The chosen name within the creator's own namespace: another person's choice never collides
  // with it, so a 409 tells nobody what anyone else has registered.
  const doc: ServerCredentialDoc = {
    _id: `${input.client_id}.${await serverCredentials.namespaceOf(owner)}`,
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
    await serverCredentials.create(doc);
  } catch (err) {
    if (isDuplicateKey(err)) throw problems.conflict('client-id-taken', `You already have a server credential ${doc._id}.`);
    throw err;
  }
  return { doc, secret };
}

/** The caller's credentials, with when each was last used. */
export async function listServerCredentials(ctx: OperationContext): Promise<ServerCredentialDoc[]> {
  const { serverCredentials } = ctx.services;
  return serverCredentials.withUsage(await serverCredentials.listOwned(ctx.state.principal.subject));
}

export async function readServerCredential(ctx: OperationContext, clientId: string): Promise<ServerCredentialDoc> {
  const [doc] = await ctx.services.serverCredentials.withUsage([await owned(ctx, clientId)]);
  return doc!;
}

export async function updateServerCredential(
  ctx: OperationContext,
  clientId: string,
  patch: z.infer<typeof serverCredentialPatchBody>,
): Promise<ServerCredentialDoc> {
  const doc = await owned(ctx, clientId);
  // Deactivation kills tokens already issued; scope and filter changes apply to them at once anyway.
  const updated = await ctx.services.serverCredentials.update(doc._id, patch, patch.active === false);
  if (!updated) throw problems.notFound('server credential', doc._id);
  return (await ctx.services.serverCredentials.withUsage([updated]))[0]!;
}

/** A new secret (answered this once): the generation moves with it, so the old secret and every token it got stop at once. */
export async function rotateServerCredential(ctx: OperationContext, clientId: string): Promise<{ clientId: string; secret: string }> {
  const doc = await owned(ctx, clientId);
  const secret = newSecret();
  const updated = await ctx.services.serverCredentials.update(doc._id, { secret_hash: await hashPassword(secret) }, true);
  if (!updated) throw problems.notFound('server credential', doc._id);
  return { clientId: doc._id, secret };
}

/** Deletes a credential and the consents people gave it. */
export async function deleteServerCredential(ctx: OperationContext, clientId: string): Promise<void> {
  const doc = await owned(ctx, clientId);
  await ctx.services.consents.forgetCredential('server_credential', doc._id);
  await ctx.services.serverCredentials.delete(doc._id);
}

/** Why a client credentials grant is refused, in the token endpoint's terms (RFC 6749 §5.2). */
export type ClientCredentialsRefusal = { error: 'invalid_client' | 'invalid_scope'; description: string };

/**
 * The client credentials grant (SPEC §4.1, §5.2): a server credential's id and secret for an access
 * token with its scopes, or fewer. No refresh token.
 */
export async function clientCredentialsGrant(
  services: Services,
  id: string,
  secret: string,
  scope: string | undefined,
): Promise<{ issued: IssuedToken; scope: string } | ClientCredentialsRefusal> {
  const cred = await services.serverCredentials.get(id);
  // The same scrypt work whether or not the client exists, so timing does not reveal client ids.
  const ok = await verifyPassword(secret, cred?.secret_hash ?? (await decoyHash));
  if (!cred || !ok || !cred.active) return { error: 'invalid_client', description: 'Client authentication failed.' };
  let scopes = cred.scopes;
  if (scope) {
    const requested = scope.split(' ').filter(Boolean);
    const extra = requested.filter((s) => !cred.scopes.includes(s));
    if (extra.length > 0) return { error: 'invalid_scope', description: `Not granted to this client: ${extra.join(' ')}.` };
    scopes = requested;
  }
  // SPEC §2.6: every exchange is recorded (awaited, so the list shows it at once), but never fails the grant.
  await recordUse(services, `server credential ${cred._id}`, () => services.serverCredentials.touch(cred._id));
  const issued = await services.tokens.issue(cred._id, { kind: 'server', gen: cred.generation, scope: scopes.join(' ') });
  return { issued, scope: scopes.join(' ') };
}
