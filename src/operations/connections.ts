import { z } from 'zod';
import { text } from '../kernel/json/schemas.js';
import { authorizerOf, AuthorizerUnusable } from '../connections/authorizers.js';
import { callbackUrl, connectionIdFor } from '../connections/ids.js';
import { stateHash } from '../connections/oauth.js';
import { ConnectionUnusable } from '../connections/projection.js';
import { problems } from '../kernel/errors/problem.js';
import { presentConnection } from '../presenters/connections.js';
import { unusableAuthorizer } from '../workflow-clients/connection.js';
import type { ConnectionDoc } from '../store/connections.js';
import { visibleArtifact, visibleAuthorizer } from './artifacts.js';
import type { OperationContext, RequestContext } from './services.js';

export const startBody = z.strictObject({
  server_client_ids: z
    .array(z.string().min(1).max(200))
    .max(20)
    .optional()
    .describe(
      'Server credentials (client ids) that may project this connection with POST /connections/{id}/project; absent on a later start: unchanged; none: only the platform itself (MCP servers with oauth2 auth).',
    ),
});

/** What the callback reads of the provider's redirect (other parameters are the provider's own); text that any engine stores. */
export const callbackQuery = z.object({
  state: text(z.string().min(1).max(512)).optional(),
  code: text(z.string().min(1).max(4096)).optional(),
  error: text(z.string().min(1).max(200)).optional(),
  error_description: text(z.string().max(1000)).optional(),
});

/**
 * POST /connections/{authorizer_id}/start (SPEC §4.4): the caller's connection to the authorizer,
 * its workflow started (or the running one reused), and a new consent attempt in it.
 */
export async function startConnection(ctx: OperationContext, authorizerId: string, body: z.infer<typeof startBody>) {
  const { services } = ctx;
  const principal = ctx.state.principal;
  const found = await visibleAuthorizer(ctx, authorizerId);
  try {
    authorizerOf(found.doc);
  } catch (err) {
    if (err instanceof AuthorizerUnusable) throw unusableAuthorizer(err.message);
    throw err;
  }
  const unknown: { name: string; reason: string }[] = [];
  for (const [i, clientId] of (body.server_client_ids ?? []).entries()) {
    const credential = await services.serverCredentials.get(clientId);
    if (!credential?.active) unknown.push({ name: `server_client_ids.${i}`, reason: `no active server credential ${clientId}` });
  }
  if (unknown.length > 0) throw problems.validation('Every server_client_ids entry must name an active server credential.', unknown);

  const bind = body.server_client_ids && [...new Set(body.server_client_ids)];
  const doc = await services.connections.open(
    { _id: connectionIdFor(principal.subject, authorizerId), user_id: principal.subject, authorizer_id: authorizerId },
    bind,
  );
  const begun = await services.connectionWorkflows.begin(doc, found.container._id);
  const url = await services.connections.authorizationUrl(begun.attempt_id);
  if (!url)
    throw problems.conflict('connection-attempt-gone', 'The sign-in attempt was replaced before it could be returned; start again.');
  const current = (await services.connections.get(doc._id)) ?? doc;
  return {
    ...presentConnection(current),
    authorization_url: url,
    attempt_expires_at: begun.expires_at,
    redirect_uri: callbackUrl(services.config.apiUri, authorizerId),
  };
}

export interface CallbackPage {
  status: number;
  outcome: 'connected' | 'failed' | 'pending';
  title: string;
  message: string;
}

const failedPage = (status: number, title: string, message: string): CallbackPage => ({ status, outcome: 'failed', title, message });
const alreadyUsed = failedPage(
  400,
  'Sign-in link already used',
  'This sign-in link has already been used, and a link works once. Nothing was changed; start connecting again if you need to.',
);

/**
 * GET /connections/{authorizer_id}/callback: the provider's redirect. `state` must name an attempt of
 * this authorizer, unexpired and unused (the first callback consumes it); the answer is recorded sealed
 * and handed to the connection's workflow, which exchanges the code.
 */
export async function connectionCallback(
  ctx: RequestContext,
  authorizerId: string,
  query: z.infer<typeof callbackQuery>,
): Promise<CallbackPage> {
  const { services } = ctx;
  if (!query.state)
    return failedPage(
      400,
      'Sign-in failed',
      'The provider sent no state parameter, so this sign-in cannot be matched to a request. Start connecting again.',
    );
  const hash = stateHash(query.state);
  const attempt = await services.connections.attemptByStateHash(hash);
  if (!attempt || attempt.authorizer_id !== authorizerId)
    return failedPage(400, 'Sign-in failed', 'This sign-in link is unknown or was replaced by a newer one. Start connecting again.');
  if (attempt.consumed_at) return alreadyUsed;
  if (attempt.expires_at.getTime() <= Date.now())
    return failedPage(400, 'Sign-in expired', 'This sign-in took too long and has expired. Start connecting again.');
  if (!query.code && !query.error)
    return failedPage(400, 'Sign-in failed', 'The provider sent neither a code nor an error. Start connecting again.');
  const outcome = query.code
    ? { code: query.code }
    : { error: query.error!, ...(query.error_description ? { error_description: query.error_description } : {}) };
  if (!(await services.connections.consume(hash, outcome))) return alreadyUsed;

  const result = await services.connectionWorkflows.callback(attempt.connection_id, attempt.attempt_id, 20_000);
  if (!result) return failedPage(400, 'Sign-in expired', 'This sign-in is no longer awaited. Start connecting again.');
  if (result === 'waiting')
    return {
      status: 202,
      outcome: 'pending',
      title: 'Still connecting',
      message: 'The provider answered; the platform is still finishing the connection. Check it with GET /connections.',
    };
  if (result.status === 'active' && !result.error)
    return { status: 200, outcome: 'connected', title: 'Connected', message: 'Your account is connected. You can close this window.' };
  const detail = result.error?.detail ?? 'The connection could not be completed.';
  return failedPage(
    result.error?.code === 'access_denied' ? 403 : 400,
    result.error?.code === 'access_denied' ? 'Access denied' : 'Connection failed',
    detail,
  );
}

/**
 * A connection the caller may see: the person's own; a server credential sees only those its person
 * bound to it (the ones it may project).
 */
export async function visibleConnection(ctx: OperationContext, id: string): Promise<ConnectionDoc> {
  const principal = ctx.state.principal;
  const doc = await ctx.services.connections.get(id);
  const bound = principal.actor.kind !== 'server_credential' || doc?.server_client_ids.includes(principal.actor.id);
  if (!doc || doc.user_id !== principal.subject || !bound) throw problems.notFound('connection', id);
  return doc;
}

export async function listConnections(ctx: OperationContext, authorizerId?: string) {
  const principal = ctx.state.principal;
  const clientId = principal.actor.kind === 'server_credential' ? principal.actor.id : undefined;
  const docs = await ctx.services.connections.list(principal.subject, {
    ...(authorizerId ? { authorizerId } : {}),
    ...(clientId ? { clientId } : {}),
  });
  return { items: docs.map(presentConnection) };
}

/** DELETE /connections/{id}: through the workflow (one is started if none runs), which revokes at the provider and deletes the record. */
export async function deleteConnection(ctx: OperationContext, id: string) {
  const doc = await visibleConnection(ctx, id);
  const authorizer = await ctx.services.artifacts.get(doc.authorizer_id);
  const result = await ctx.services.connectionWorkflows.delete(doc, authorizer?.collection_id ?? 'unknown');
  return { id, deleted: true, revoked_at_provider: result.revoked_at_provider };
}

/**
 * POST /connections/{id}/project (SPEC §4.4, §5.5): only a server credential the connection is bound
 * to, acting for the connection's person, within its scopes and resource filters (the authorizer must
 * be visible to it). The headers are returned, never logged or stored.
 */
export async function projectConnection(ctx: OperationContext, id: string) {
  const principal = ctx.state.principal;
  if (principal.actor.kind !== 'server_credential')
    throw problems.forbidden(
      'A projection is made for a server credential (SPEC §4.4): call with its token, acting for the person (X-On-Behalf-Of).',
    );
  const doc = await visibleConnection(ctx, id);
  let authorizer;
  try {
    authorizer = (await visibleArtifact(ctx, doc.authorizer_id)).doc;
  } catch {
    throw problems.forbidden(
      `The authorizer of connection ${id} is outside what this credential and person may reach (scopes, resource filters, grants).`,
    );
  }
  try {
    // Against the authorizer as the person consented to it: a changed one sends nothing (connections/pin.ts).
    const projection = await ctx.services.projector.project(doc, authorizer);
    return { connection_id: id, headers: projection.headers, expires_at: projection.expires_at?.toISOString() ?? null };
  } catch (err) {
    if (err instanceof ConnectionUnusable) throw problems.conflict(err.code, err.message);
    throw err;
  }
}
