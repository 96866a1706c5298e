import type { McpClientContent } from '../artifacts/content-types/mcp-client.js';
import { ScopeSet } from '../identity/principal.js';
import { missingScope } from './tool-def.js';
import { toolTable } from './tool-table.js';

// An MCP client configuration served as its own endpoint (`/mcp/clients/{id}`, issue #36): the same
// server as /mcp, limited to the tools the configuration names and its scopes allow.

/** What an endpoint narrower than /mcp serves: only these tools, under this name. */
export interface EndpointLimits {
  /** The configuration's server name, told to the model at initialize. */
  name: string;
  /** The only tools listed and callable; any other is unknown here. */
  tools: ReadonlySet<string>;
}

/**
 * The tools a configuration offers: those it names that exist and whose scopes it grants. A named
 * tool whose scope it lacks is never offered (no token could make it callable here), and is reported
 * so that the person can see why.
 */
export function offeredTools(config: Pick<McpClientContent, 'tools' | 'scopes'>): { tools: string[]; withoutScope: string[] } {
  const granted = new ScopeSet(config.scopes);
  const tools: string[] = [];
  const withoutScope: string[] = [];
  for (const name of config.tools) {
    const tool = toolTable.get(name);
    if (!tool) continue;
    (missingScope(granted, tool.def) ? withoutScope : tools).push(name);
  }
  return { tools, withoutScope };
}

/** The model's word for what this endpoint is, after the platform's own instructions. */
export const endpointInstructions = (limits: EndpointLimits) =>
  ` This endpoint is the saved connection "${limits.name}": it offers only ${[...limits.tools].join(', ')}, ` +
  'within the workspaces, collections and scopes it was configured with.';
