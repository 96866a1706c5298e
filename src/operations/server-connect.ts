import { v7 as uuidv7 } from 'uuid';
import { z } from 'zod';
import { authorizerType } from '../artifacts/content-types/index.js';
import type { AuthorizerContent } from '../artifacts/content-types/authorizer.js';
import type { McpServerContent } from '../artifacts/content-types/mcp-server.js';
import {
  authorizationServer,
  DiscoveryFailed,
  probe,
  protectedResource,
  registerClient,
  scopesFor,
  secureUrl,
  type DiscoveryDeps,
} from '../connections/discovery.js';
import { callbackUrl, clientMetadataUrl } from '../connections/ids.js';
import { requireGrant } from '../identity/grants.js';
import { Problem, problems } from '../kernel/errors/problem.js';
import { startedConnectionSchema } from '../presenters/connections.js';
import type { ArtifactDoc } from '../store/artifacts.js';
import { afterApiWrite, apiSource, checkedContent, deleteArtifact, requireTypeScope, updateArtifact } from './artifacts.js';
import { startBody, startConnection } from './connections.js';
import { invocableServer, type InvocableServer } from './mcp-servers.js';
import type { OperationContext } from './services.js';

/** `POST /artifacts/{server_id}/op/connect`: the same body as a connection start. */
export const connectBody = startBody;

export const serverConnectionSchema = z
  .object({
    server_id: z.string(),
    authorizer_id: z.string(),
    discovered: z.boolean().describe('Whether this request discovered the authorization and made the authorizer (the first connect).'),
    connection: startedConnectionSchema,
  })
  .meta({ id: 'ServerConnection' });

export const clientMetadataSchema = z
  .object({
    client_id: z.string(),
    client_name: z.string(),
    client_uri: z.string(),
    redirect_uris: z.array(z.string()),
    grant_types: z.array(z.string()),
    response_types: z.array(z.string()),
    token_endpoint_auth_method: z.literal('none'),
    scope: z.string().optional(),
  })
  .meta({ id: 'ClientMetadataDocument' });

const discoveryProblem = (err: DiscoveryFailed): Problem => {
  if (err.code === 'not-protected') return problems.conflict('server-not-protected', err.message);
  return new Problem(502, 'authorization-discovery-failed', 'The server’s authorization could not be discovered', err.message, {
    reason: err.code,
  });
};

/** The MCP endpoint of an http registration: its `url`, or its discovery document's (same origin only: tokens go there). */
async function endpointOf(deps: DiscoveryDeps, content: McpServerContent): Promise<URL> {
  const transport = content.transport;
  if (transport.type !== 'http') throw problems.conflict('not-an-http-server', 'Only an http MCP server is connected by OAuth.');
  if (transport.url) return new URL(transport.url);
  const wellKnown = new URL(transport.well_known!);
  let body: unknown;
  try {
    ({ body } = await deps.outbound.fetchJson(wellKnown, { redirect: 'manual' }));
  } catch (err) {
    throw new DiscoveryFailed('unreachable', `The discovery document ${wellKnown.href} could not be read: ${(err as Error).message}.`);
  }
  const named = (body as { endpoints?: { streamable_http?: unknown } } | null)?.endpoints?.streamable_http;
  if (typeof named !== 'string') throw new DiscoveryFailed('metadata-unusable', `${wellKnown.href} names no endpoints.streamable_http.`);
  const endpoint = new URL(named, wellKnown);
  if (endpoint.origin !== wellKnown.origin)
    throw new DiscoveryFailed(
      'metadata-unusable',
      `endpoints.streamable_http is on another origin (${endpoint.origin}); register the endpoint with "url".`,
    );
  return endpoint;
}

/** The authorization request's URL with the resource indicator (RFC 8707) that every request for the server's tokens names. */
function withResource(authorizationEndpoint: string, resource: string): string {
  const url = new URL(authorizationEndpoint);
  url.searchParams.set('resource', resource);
  return url.toString();
}

/**
 * Discovers how the server is protected and makes the authorizer a person would have written by hand:
 * the resource's metadata, its authorization server's, a client there (a client ID metadata document
 * the platform serves when the server takes them and the platform is on https, else dynamic client
 * registration), PKCE, the resource indicator and the scopes the challenge or the metadata name.
 * Created in the server's workspace, as the caller, with the same checks as POST /artifacts.
 */
async function discoverAuthorizer(ctx: OperationContext, server: InvocableServer): Promise<ArtifactDoc> {
  const { services } = ctx;
  const principal = ctx.state.principal;
  requireTypeScope(principal, 'artifact:write', authorizerType);
  requireGrant(server.container, principal, 'C');
  const deps: DiscoveryDeps = { outbound: services.outbound, isDev: services.config.isDev };
  const endpoint = await endpointOf(deps, server.content);
  secureUrl(deps, endpoint.href, 'The MCP server');
  const challenge = await probe(deps, endpoint);
  if (!challenge)
    throw problems.conflict(
      'server-not-protected',
      `The MCP server at ${endpoint.href} did not ask for authorization (no 401 with a Bearer challenge): it needs no connection.`,
    );
  const resource = await protectedResource(deps, endpoint, challenge);
  const as = await authorizationServer(deps, resource.authorization_servers[0]!);
  const scopes = scopesFor(challenge, resource, as);

  const id = uuidv7();
  const redirectUri = callbackUrl(services.config.apiUri, id);
  const cimd = as.client_id_metadata_document_supported === true && services.config.apiUri.startsWith('https://');
  let client: { client_id: string; client_secret?: string };
  if (cimd) client = { client_id: clientMetadataUrl(services.config.apiUri, id) };
  else client = await registerClient(deps, as, { name: `${server.doc.title} (platform)`, redirectUri, scopes });
  const secret = client.client_secret
    ? await services.secrets.create(principal.subject, `OAuth client secret for ${server.doc.title}`.slice(0, 200), client.client_secret)
    : null;

  const content: AuthorizerContent = {
    provider: as.issuer,
    auth_url: withResource(as.authorization_endpoint, resource.resource),
    token_url: as.token_endpoint,
    scopes,
    client_id: client.client_id,
    pkce: true,
    ...(secret ? { secret_id: secret._id } : {}),
  };
  const checked = await checkedContent(ctx, authorizerType, JSON.stringify(content), server.container);
  const doc = await services.artifacts.create(principal, server.container, {
    id,
    title: `${server.doc.title} sign-in`.slice(0, 500),
    content_type: authorizerType,
    content: checked,
    context: {
      discovered: {
        server_id: server.doc._id,
        resource: resource.resource,
        issuer: as.issuer,
        client: cimd ? 'client_id_metadata_document' : 'dynamic_registration',
      },
    },
    source: { ...apiSource(ctx), derived_from: server.doc._id },
  });
  await afterApiWrite(ctx, 'artifact_created', doc);
  return doc;
}

/**
 * POST /artifacts/{server_id}/op/connect: connects the caller to an http MCP server protected by MCP
 * authorization. The first time (the server has no `auth`), the authorization is discovered, the
 * authorizer made and the server pointed at it (`auth: oauth2`, a new revision: the caller must be
 * able to edit it); every time, the caller's own connection is started, and they are sent to the
 * authorization server's sign-in (`connection.authorization_url`). Each person connects once; their
 * calls then carry their own token.
 */
export async function connectServer(ctx: OperationContext, serverId: string, body: z.infer<typeof connectBody>) {
  let server = await invocableServer(ctx, serverId);
  let discovered = false;
  let authorizerId: string;
  const auth = server.content.auth;
  if (auth?.type === 'oauth2') authorizerId = auth.authorizer_id;
  else if (auth)
    throw problems.conflict(
      'server-auth-not-oauth',
      `MCP server ${serverId} is called with ${auth.type === 'api_key' ? 'an API key' : 'a static header'}, not per-person OAuth.`,
    );
  else {
    let made: ArtifactDoc;
    try {
      made = await discoverAuthorizer(ctx, server);
    } catch (err) {
      if (err instanceof DiscoveryFailed) throw discoveryProblem(err);
      throw err;
    }
    const next = { ...server.content, auth: { type: 'oauth2' as const, authorizer_id: made._id } };
    try {
      // Only over the revision discovery read: someone else's edit meanwhile wins.
      await updateArtifact(ctx, serverId, { content: JSON.stringify(next) }, [server.doc.revision]);
      authorizerId = made._id;
      discovered = true;
    } catch (err) {
      // The authorizer made for nothing goes, with the client secret it held.
      await deleteArtifact(ctx, made._id).catch(() => undefined);
      const secretId = (JSON.parse(made.content) as AuthorizerContent).secret_id;
      if (secretId) await ctx.services.secrets.delete(ctx.state.principal.subject, secretId).catch(() => false);
      if (!(err instanceof Problem && err.slug === 'revision-mismatch')) throw err;
      server = await invocableServer(ctx, serverId);
      if (server.content.auth?.type !== 'oauth2')
        throw problems.conflict('server-changed', `MCP server ${serverId} was changed while connecting; connect again.`);
      authorizerId = server.content.auth.authorizer_id;
    }
  }
  const connection = await startConnection(ctx, authorizerId, body);
  return { server_id: serverId, authorizer_id: authorizerId, discovered, connection };
}

/**
 * GET /connections/{authorizer_id}/client-metadata: the client ID metadata document (MCP 2025-11-25,
 * draft-ietf-oauth-client-id-metadata-document) of an authorizer whose client_id is this very URL,
 * fetched by its authorization server. A public client (PKCE, no secret); 404 for any other id.
 */
export async function clientMetadataDocument(services: OperationContext['services'], authorizerId: string) {
  const url = clientMetadataUrl(services.config.apiUri, authorizerId);
  const doc = await services.artifacts.get(authorizerId);
  let content: { client_id?: unknown; scopes?: unknown } | null = null;
  try {
    content = doc && !doc.archived_at && doc.content_type.startsWith(authorizerType) ? JSON.parse(doc.content) : null;
  } catch {
    content = null;
  }
  if (!content || content.client_id !== url) throw problems.notFound('client metadata document', authorizerId);
  return {
    client_id: url,
    client_name: 'Platform',
    client_uri: services.config.apiUri,
    redirect_uris: [callbackUrl(services.config.apiUri, authorizerId)],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none' as const,
    ...(Array.isArray(content.scopes) && content.scopes.length ? { scope: content.scopes.join(' ') } : {}),
  };
}
