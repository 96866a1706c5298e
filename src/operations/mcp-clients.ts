import { baseType, mcpClientType } from '../artifacts/content-types/index.js';
import { mcpClientContent, type McpClientContent } from '../artifacts/content-types/mcp-client.js';
import { ScopeSet, type Principal, type ResourceFilters, type Scope } from '../identity/principal.js';
import { Problem, problems } from '../kernel/errors/problem.js';
import type { ArtifactDoc } from '../store/artifacts.js';
import { visibleArtifact } from './artifacts.js';
import type { OperationContext } from './services.js';

// An MCP client configuration (content-types/mcp-client.ts) as the platform serves it: the caller
// reaches the endpoint only if they may read the configuration, only with the credential it is tied
// to (when it names one), and then acts with the intersection of their own access and the
// configuration's: scopes, workspaces and collections. Read on every request (the store's deadline
// applies), so an edit takes effect on the next request, on every replica.

/** A configuration the caller can read, or 404: missing, invisible and not a configuration look the same. */
export async function visibleMcpClient(ctx: OperationContext, id: string): Promise<{ doc: ArtifactDoc; config: McpClientContent }> {
  const found = await visibleArtifact(ctx, id).catch((err: unknown) => {
    if (err instanceof Problem && err.status === 404) return null;
    throw err;
  });
  if (!found || baseType(found.doc.content_type) !== mcpClientType) throw problems.notFound('MCP client configuration', id);
  // Stored content was validated as it was written; a tool since removed from the platform must not make it unreadable.
  const parsed = mcpClientContent.safeParse(JSON.parse(found.doc.content));
  if (!parsed.success) {
    throw problems.conflict(
      'invalid-mcp-client',
      `MCP client configuration ${id} no longer validates (${parsed.error.issues[0]?.message ?? 'invalid'}): edit it to serve it again.`,
    );
  }
  return { doc: found.doc, config: parsed.data };
}

/** The scopes both hold: coarse scopes in both, and fine scopes whose action the configuration grants. */
export function narrowScopes(held: ScopeSet, granted: readonly Scope[]): ScopeSet {
  const allowed = new Set<string>(granted);
  return new ScopeSet([
    ...[...held.coarse].filter((s) => allowed.has(s)),
    ...held.fine.filter((f) => allowed.has(`artifact:${f.action}`)).map((f) => `${f.kind}:${f.mime}:${f.action}`),
  ]);
}

function narrowIds(held: '*' | string[], granted: '*' | string[]): '*' | string[] {
  if (held === '*') return granted;
  if (granted === '*') return held;
  const allowed = new Set(granted);
  return held.filter((id) => allowed.has(id));
}

/** The containers both reach: an empty list reaches none. */
export function narrowFilters(held: ResourceFilters, config: Pick<McpClientContent, 'workspaces' | 'collections'>): ResourceFilters {
  return { workspaces: narrowIds(held.workspaces, config.workspaces), collections: narrowIds(held.collections, config.collections) };
}

/**
 * The principal the endpoint serves: the caller within the configuration. Never an administrator
 * (a configuration is a narrowed view, whoever uses it).
 */
export function narrowedPrincipal(principal: Principal, config: McpClientContent): Principal {
  return {
    ...principal,
    scopes: narrowScopes(principal.scopes, config.scopes),
    filters: narrowFilters(principal.filters, config),
    isAdmin: false,
  };
}

/** 403 when the configuration is tied to one credential and the caller is another. */
function requireTiedCredential(principal: Principal, config: McpClientContent, id: string): void {
  const { auth } = config;
  const pinned =
    auth.type === 'api_key'
      ? auth.api_key_id && { kind: 'api_key', id: auth.api_key_id, what: `API key ${auth.api_key_id}` }
      : auth.client_id && { kind: 'oauth_client', id: auth.client_id, what: `OAuth client ${auth.client_id}` };
  if (!pinned) return;
  if (principal.actor.kind === pinned.kind && principal.actor.id === pinned.id) return;
  throw problems.forbidden(`MCP client configuration ${id} accepts only ${pinned.what}; connect with that credential.`);
}

/** What one request to `/mcp/clients/{id}` serves: the configuration, and the caller narrowed by it. */
export async function mcpClientEndpoint(
  ctx: OperationContext,
  id: string,
): Promise<{ doc: ArtifactDoc; config: McpClientContent; principal: Principal }> {
  const { doc, config } = await visibleMcpClient(ctx, id);
  if (doc.archived_at)
    throw problems.conflict('archived-artifact', `MCP client configuration ${id} is archived; unarchive it to serve it again.`);
  requireTiedCredential(ctx.state.principal, config, id);
  return { doc, config, principal: narrowedPrincipal(ctx.state.principal, config) };
}
