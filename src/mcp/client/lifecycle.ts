import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { baseType } from '../../artifacts/content-types/index.js';
import { definableType, type LifecycleTool } from '../../artifacts/content-types/type-definition.js';
import type { ArtifactDoc } from '../../store/artifacts.js';
import type { CatalogDoc, McpCatalogStore } from '../../store/mcp-catalog.js';

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
