import type { McpServer, ServerContext } from '@modelcontextprotocol/server';
import { RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY } from '@modelcontextprotocol/ext-apps/server';
import type { McpUiResourceMeta } from '@modelcontextprotocol/ext-apps';
import type { OperationContext } from '../operations/services.js';
import type { ToolDef } from './tools.js';
import { artifactViewerHtml } from './apps/viewer-html.js';

// MCP Apps (SEP-1865, issue #35): the tools that answer with an artifact carry the platform's artifact
// viewer (`_meta.ui.resourceUri`), a `ui://` resource listed and served here. The viewer shows every
// artifact with the console's renderers. It never loads a type's own viewer (SPEC §2.10): that page is
// another server's code, and a host runs this page as the platform's app, with the platform's tools.
// For a type that may declare one, it links to the console, whose host limits that viewer to its own
// server's tools (docs/decisions.md).

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

/** The request's operation context (every /mcp request has one: serveMcp hands it over as auth info). */
function operationOf(extra: ServerContext): OperationContext {
  const operation = extra.http?.authInfo?.extra?.operation as OperationContext | undefined;
  if (!operation) throw new Error('MCP request without an operation context');
  return operation;
}

/** Registers the viewer's resource: the one `ui://` resource the platform serves. */
export function registerApps(server: McpServer): void {
  server.registerResource(
    'artifact-viewer',
    artifactViewerUri,
    {
      title: 'Artifact viewer',
      description: 'Shows the artifact a tool returns: its title, type and content (MCP App).',
      mimeType: RESOURCE_MIME_TYPE,
      _meta: { ui: uiMeta, icon: 'platform' },
    },
    async (uri, extra) => {
      const { services, state } = operationOf(extra);
      return {
        contents: [
          {
            uri: uri.href,
            mimeType: RESOURCE_MIME_TYPE,
            text: await artifactViewerHtml(services, state.publicBase ?? services.config.apiUri),
            _meta: { ui: uiMeta },
          },
        ],
      };
    },
  );
}
