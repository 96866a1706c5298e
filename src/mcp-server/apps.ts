import { ProtocolErrorCode, ResourceTemplate, type McpServer, type ServerContext } from '@modelcontextprotocol/server';
import { RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY } from '@modelcontextprotocol/ext-apps/server';
import type { McpUiResourceMeta } from '@modelcontextprotocol/ext-apps';
import { Problem } from '../kernel/errors/problem.js';
import type { OperationContext } from '../operations/services.js';
import type { ToolDef } from './tools.js';
import { artifactViewerHtml, typeViewerTemplate } from './apps/viewer-html.js';
import { typeViewerHtml } from './apps/type-viewer.js';

// MCP Apps (SEP-1865, issue #35): the tools that answer with an artifact carry the platform's artifact
// viewer (`_meta.ui.resourceUri`), a `ui://` resource listed and served here. The viewer shows the
// artifact with the console's renderers, or becomes the viewer its type declares (SPEC §2.10), which
// it reads through `typeViewerTemplate`.

/** The built-in viewer's resource. */
export const artifactViewerUri = 'ui://platform/artifact-viewer.html';

/** The tools whose result is one artifact (presentArtifact), shown in the viewer. */
const artifactTools = new Set(['get_artifact', 'create_artifact', 'update_artifact']);

/** No domain of any kind: hosts give the page no network (the spec's restrictive default, said explicitly). */
const uiMeta: McpUiResourceMeta = {
  csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] },
  prefersBorder: true,
};

/**
 * The `_meta` a tool carries for its MCP App: `ui.resourceUri`, and the flat `ui/resourceUri` key the
 * spec deprecates but hosts that predate it still read (ext-apps' registerAppTool writes both).
 */
export function toolAppMeta(def: ToolDef): Record<string, unknown> {
  if (!artifactTools.has(def.name)) return {};
  return { ui: { resourceUri: artifactViewerUri }, [RESOURCE_URI_META_KEY]: artifactViewerUri };
}

function operationOf(extra: ServerContext): OperationContext {
  const operation = extra.http?.authInfo?.extra?.operation as OperationContext | undefined;
  if (!operation) throw new Error('MCP request without an operation context');
  return operation;
}

/** A JSON-RPC error as server.ts sends them: the message as is, the code, the URI in `data`. */
const notFound = (message: string, uri: string) =>
  Object.assign(new Error(message), { code: ProtocolErrorCode.InvalidParams, data: { uri } });

/** Registers the viewer's resource and the template its type viewers are read through. */
export function registerApps(server: McpServer): void {
  server.registerResource(
    'artifact-viewer',
    artifactViewerUri,
    {
      title: 'Artifact viewer',
      description: 'Shows the artifact a tool returns: its title, type and content, or its type’s own viewer (MCP App).',
      mimeType: RESOURCE_MIME_TYPE,
      _meta: { ui: uiMeta, icon: 'platform' },
    },
    async (uri) => ({
      contents: [{ uri: uri.href, mimeType: RESOURCE_MIME_TYPE, text: await artifactViewerHtml(), _meta: { ui: uiMeta } }],
    }),
  );
  // Read by the viewer through its host (resources/read), never listed: one per artifact.
  server.registerResource(
    'artifact-type-viewer',
    new ResourceTemplate(typeViewerTemplate, { list: undefined }),
    { title: 'The viewer of an artifact’s type', mimeType: RESOURCE_MIME_TYPE, _meta: { ui: uiMeta, icon: 'platform' } },
    async (uri, vars, extra) => {
      const found = await typeViewerHtml(operationOf(extra), String(vars.id)).catch((err: unknown) => {
        if (err instanceof Problem && err.status < 500) throw notFound(err.message, uri.href);
        throw err;
      });
      if (!found) throw notFound(`Artifact ${String(vars.id)} has no viewer of its type's own; the artifact viewer shows it.`, uri.href);
      return {
        contents: [
          {
            uri: uri.href,
            mimeType: RESOURCE_MIME_TYPE,
            text: found.html,
            _meta: { ui: uiMeta, 'platform/viewer': { server_id: found.server_id, uri: found.uri } },
          },
        ],
      };
    },
  );
}
