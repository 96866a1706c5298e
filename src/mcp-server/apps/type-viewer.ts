import { baseType } from '../../artifacts/content-types/index.js';
import { typeServers, viewerOf } from '../../mcp-client/lifecycle.js';
import { visibleArtifact } from '../../operations/artifacts.js';
import { mayInvokeIn } from '../../operations/mcp-permissions.js';
import { readResource } from '../../operations/mcp-servers.js';
import type { OperationContext } from '../../operations/services.js';

/**
 * The HTML of an artifact type's own viewer (SPEC §2.10 `ui.viewer`, a `ui://` resource of the server
 * that defines the type), read for the caller as POST /artifacts/{id}/open finds it for the console:
 * the workspace's oldest healthy server defining the type, for those who may call the workspace's
 * servers. Null when the type declares none, or its server did not answer within the invoke wait.
 */
export async function typeViewerHtml(
  ctx: OperationContext,
  artifactId: string,
): Promise<{ html: string; server_id: string; uri: string } | null> {
  const { doc, container } = await visibleArtifact(ctx, artifactId);
  if (doc.container_kind !== 'workspace' || !mayInvokeIn(ctx.state.principal, container)) return null;
  const [server] = await typeServers(ctx.services.mcpCatalog, doc.collection_id, doc.content_type);
  const type = server?.content_types.find((t) => t.mime === baseType(doc.content_type));
  const viewer = server ? viewerOf(server, type?.ui.viewer) : null;
  if (!viewer) return null;
  const answer = await readResource(ctx, viewer.server_id, { uri: viewer.uri });
  if (answer.status !== 200) return null;
  const { contents } = answer.body as { contents: { uri: string; text?: unknown }[] };
  const page = contents.find((c) => c.uri === viewer.uri) ?? contents[0];
  return typeof page?.text === 'string' ? { html: page.text, ...viewer } : null;
}
