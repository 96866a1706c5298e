import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { baseType } from '../artifacts/content-types/index.js';
import { definableType, type LifecycleTool } from '../artifacts/content-types/type-definition.js';
import type { ArtifactDoc } from '../store/artifacts.js';
import type { CatalogDoc, McpCatalogStore } from '../store/mcp-catalog.js';

/** What every lifecycle tool receives (§4.6; the spec leaves the arguments open: docs/decisions.md). */
export function lifecycleArguments(doc: ArtifactDoc): { artifact: Record<string, unknown> } {
  return {
    artifact: {
      id: doc._id,
      title: doc.title,
      content_type: doc.content_type,
      content: doc.content,
      context: doc.context,
      collection_id: doc.collection_id,
    },
  };
}

/**
 * The healthy servers of a workspace that define this content type. A type no server may define
 * (text/markdown, a platform type) has none, and costs no query: this runs on every artifact created.
 */
export function typeServers(catalog: McpCatalogStore, workspaceId: string, contentType: string): Promise<CatalogDoc[]> {
  const mime = baseType(contentType);
  return definableType(mime) ? catalog.typeServers(workspaceId, mime) : Promise.resolve([]);
}

/** Of those servers, the one implementing the lifecycle tool, or null: a tool the server does not list is skipped silently (§4.6, §7.6). */
export const serverWithTool = (servers: CatalogDoc[], tool: LifecycleTool): string | null =>
  servers.find((s) => s.tools.some((t) => t.name === tool))?._id ?? null;

/**
 * §2.10: where a type's viewer lives. `ui.viewer` names it, and the server that defines the type
 * serves it as the resource `ui://<server>/<viewer>.html`: the one under the server's own name when
 * it lists several, else any it lists. A `ui.viewer` that is itself a `ui://` URI must be listed as is.
 */
export function viewerOf(server: CatalogDoc, viewer: string | undefined): { server_id: string; uri: string } | null {
  if (!viewer) return null;
  const uris = server.resources.map((r) => r.uri).filter((uri) => uri.startsWith('ui://'));
  const wanted = viewer.startsWith('ui://')
    ? uris.filter((uri) => uri === viewer)
    : uris.filter((uri) => uri.slice('ui://'.length).split('/').slice(1).join('/') === `${viewer}.html`);
  const own = server.server_info && wanted.find((uri) => uri.startsWith(`ui://${server.server_info!.name}/`));
  const uri = own ?? wanted[0];
  return uri ? { server_id: server._id, uri } : null;
}

export async function lifecycleServer(
  catalog: McpCatalogStore,
  workspaceId: string,
  contentType: string,
  tool: LifecycleTool,
): Promise<string | null> {
  return serverWithTool(await typeServers(catalog, workspaceId, contentType), tool);
}

/** The text of a result: `structuredContent.<key>` when it is a string, else its text items joined. */
export function resultText(result: CallToolResult, key: string): string {
  const structured = (result.structuredContent as Record<string, unknown> | undefined)?.[key];
  if (typeof structured === 'string') return structured;
  return result.content.flatMap((c) => (c.type === 'text' ? [c.text] : [])).join('\n');
}
