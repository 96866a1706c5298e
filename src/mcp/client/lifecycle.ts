import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { baseType } from '../../content-types/index.js';
import type { LifecycleTool } from '../../content-types/type-definition.js';
import type { ArtifactDoc } from '../../store/artifacts.js';
import type { McpCatalogStore } from '../../store/mcp-catalog.js';

/** What every lifecycle tool receives (§4.6; the spec leaves the arguments open: docs/decisions.md). */
export function lifecycleArguments(doc: ArtifactDoc): { artifact: Record<string, unknown> } {
  return { artifact: { id: doc._id, title: doc.title, content_type: doc.content_type, content: doc.content, context: doc.context, collection_id: doc.collection_id } };
}


/**
 * The server of a workspace that defines this content type and implements the lifecycle tool, or
 * null: a tool the server does not list is skipped silently (§4.6, §7.6).
 */
export async function lifecycleServer(catalog: McpCatalogStore, workspaceId: string, contentType: string, tool: LifecycleTool): Promise<string | null> {
  if (baseType(contentType).startsWith('application/vnd.platform.')) return null;
  const servers = await catalog.typeServers(workspaceId, baseType(contentType));
  return servers.find((s) => s.tools.some((t) => t.name === tool))?._id ?? null;
}

/** The text of a result: `structuredContent.<key>` when it is a string, else its text items joined. */
export function resultText(result: CallToolResult, key: string): string {
  const structured = (result.structuredContent as Record<string, unknown> | undefined)?.[key];
  if (typeof structured === 'string') return structured;
  return result.content.flatMap((c) => (c.type === 'text' ? [c.text] : [])).join('\n');
}
