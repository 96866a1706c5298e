import { baseType, mcpClientType } from '../artifacts/content-types/index.js';
import type { McpClientContent } from '../artifacts/content-types/mcp-client.js';
import { Problem, problems } from '../kernel/errors/problem.js';
import { visibleArtifact } from '../operations/artifacts.js';
import type { OperationContext } from '../operations/services.js';
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

const idTools = new Set(['update_artifact', 'manage_artifact']);

/**
 * Through a configuration's endpoint no MCP client configuration is created or changed, this one
 * included. Otherwise a client holding a token good only here (its audience is this endpoint), under
 * a configuration that grants writing in its own workspace, could rewrite the configuration (or
 * revert it to a wider version) and widen what it is served up to all its consent allows. People
 * edit configurations over the REST API or the console. An artifact the caller cannot see is left
 * to the tool, which answers it as not found: nothing here tells whether it exists.
 */
export async function configurationChangeRefused(ctx: OperationContext, tool: string, input: unknown): Promise<Problem | null> {
  const refusal = () =>
    problems.forbidden(
      "MCP client configurations are not created or changed through a configuration's endpoint: edit them over the REST API or in the console.",
    );
  if (!isRecord(input)) return null;
  const types = [
    input.content_type,
    ...(Array.isArray(input.items) ? input.items.map((i) => (isRecord(i) ? i.content_type : undefined)) : []),
  ];
  if (types.some((t) => typeof t === 'string' && baseType(t) === mcpClientType)) return refusal();
  if (!idTools.has(tool) || typeof input.id !== 'string') return null;
  const found = await visibleArtifact(ctx, input.id).catch((err: unknown) => {
    if (err instanceof Problem && err.status === 404) return null;
    throw err;
  });
  return found && baseType(found.doc.content_type) === mcpClientType ? refusal() : null;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
