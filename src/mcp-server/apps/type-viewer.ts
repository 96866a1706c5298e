import { visibleArtifact } from '../../operations/artifacts.js';
import { openArtifact } from '../../operations/mcp-lifecycle.js';
import { readResource } from '../../operations/mcp-servers.js';
import type { OperationContext } from '../../operations/services.js';

/**
 * The HTML of an artifact type's own viewer (SPEC §2.10 `ui.viewer`, a `ui://` resource of the server
 * that defines the type), for the caller. Found as the console finds it (POST /artifacts/{id}/open:
 * the workspace's oldest healthy server defining the type, for those who may call the workspace's
 * servers), which also gives that server its `on_open` (§4.6: the artifact is opened in a viewer).
 * Null when the type declares none, or its server did not answer within the invoke wait.
 */
export async function typeViewerHtml(
  ctx: OperationContext,
  artifactId: string,
): Promise<{ html: string; server_id: string; uri: string } | null> {
  const { doc, container } = await visibleArtifact(ctx, artifactId);
  const { viewer } = await openArtifact(ctx, doc, container);
  if (!viewer) return null;
  const answer = await readResource(ctx, viewer.server_id, { uri: viewer.uri });
  if (answer.status !== 200) return null;
  const { contents } = answer.body as { contents: { uri: string; text?: unknown }[] };
  const page = contents.find((c) => c.uri === viewer.uri) ?? contents[0];
  return typeof page?.text === 'string' ? { html: page.text, ...viewer } : null;
}
