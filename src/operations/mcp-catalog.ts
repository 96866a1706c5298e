import { baseType, mcpServerType } from '../artifacts/content-types/index.js';
import { problems } from '../kernel/errors/problem.js';
import { catalogWorkflowId } from '../workflows/contracts/ids.js';
import type { EventKind } from '../events/types.js';
import type { ArtifactDoc } from '../store/artifacts.js';
import { invokesServers } from './mcp-permissions.js';
import type { CatalogDoc } from '../store/mcp-catalog.js';
import type { OperationContext } from './services.js';
import { presentMcpServer } from '../presenters/mcp-servers.js';

/** How long a catalog request waits for stale servers to be listed anew before answering with what it has. */
const refreshWaitMs = 8_000;
/** Refreshes one catalog request waits for at most. */
const refreshWaitBound = 20;
/** Servers one catalog answer covers at most. */
const serverBound = 500;

const isServer = (doc: Pick<ArtifactDoc, 'content_type'>) => baseType(doc.content_type) === mcpServerType;

function refreshCatalog(ctx: OperationContext, doc: ArtifactDoc): Promise<void> {
  return ctx.services.toolCallWorkflows.start(catalogWorkflowId(doc._id), {
    invocationId: `catalog-${doc._id}`,
    serverId: doc._id,
    workspaceId: doc.collection_id,
    principalId: ctx.state.principal.subject,
    operation: { kind: 'refresh_catalog' },
  });
}

const stale = (doc: ArtifactDoc, entry: CatalogDoc | undefined, ttlMs: number) =>
  !entry || entry.revision !== doc.revision || Date.now() - entry.refreshed_at.getTime() > ttlMs;

/**
 * GET /mcp/servers and GET /mcp/workspaces/{id}/servers: every server the caller can see, with the
 * tools, resources and health its last listing found. Servers never listed, changed since, or
 * listed longer ago than MCP_CATALOG_TTL_SECONDS are listed anew first, for a bounded wait.
 */
export async function listServers(ctx: OperationContext, options: { workspaceId?: string; refresh: boolean }) {
  const principal = ctx.state.principal;
  const { services } = ctx;
  let workspaceIds: string[];
  if (options.workspaceId) {
    if (!(await services.containers.get('workspace', principal, options.workspaceId)))
      throw problems.notFound('workspace', options.workspaceId);
    workspaceIds = [options.workspaceId];
  } else workspaceIds = await services.containers.visibleIds('workspace', principal);
  const page = workspaceIds.length
    ? await services.artifacts.list(
        workspaceIds,
        { contentType: mcpServerType, typeLimits: principal.scopes.typeLimits('artifact:read') },
        serverBound,
      )
    : { items: [], next_cursor: null };
  const servers = page.items.filter((d) => !d.archived_at && isServer(d));

  const ttlMs = services.config.MCP_CATALOG_TTL_SECONDS * 1000;
  let entries = new Map((await services.mcpCatalog.getMany(servers.map((s) => s._id))).map((e) => [e._id, e]));
  // Forcing a listing calls every server out of turn: for those who may call them.
  const force = options.refresh && invokesServers(principal);
  const toRefresh = servers.filter((s) => force || stale(s, entries.get(s._id), ttlMs));
  if (toRefresh.length) {
    await Promise.all(toRefresh.map((s) => refreshCatalog(ctx, s)));
    // Waits for the first few; the rest are listed in the background and show up on the next request.
    await Promise.all(
      toRefresh.slice(0, refreshWaitBound).map((s) => services.toolCallWorkflows.wait(catalogWorkflowId(s._id), refreshWaitMs)),
    );
    entries = new Map((await services.mcpCatalog.getMany(servers.map((s) => s._id))).map((e) => [e._id, e]));
  }
  const listed = servers.map((s) => presentMcpServer(s, entries.get(s._id)));
  return {
    servers: options.workspaceId ? listed : [ctx.services.builtinServers.catalogEntry(ctx), ...listed],
    truncated: page.next_cursor !== null,
  };
}

/**
 * What a write means for the MCP client: a server registered or changed is listed anew (so its tools
 * and content types are known before anyone asks), a deleted one leaves the catalog. A new artifact
 * of a type a server defines had that server's `on_create` before it was written (operations/on-create.ts).
 */
export async function afterMcpWrite(ctx: OperationContext, kind: EventKind, doc: ArtifactDoc): Promise<void> {
  if (doc.container_kind !== 'workspace' || !isServer(doc)) return;
  if (kind === 'artifact_deleted') await ctx.services.mcpCatalog.delete(doc._id);
  else await refreshCatalog(ctx, doc);
}
