import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { mcpServerType } from '../artifacts/content-types/index.js';
import type { OperationContext } from '../operations/services.js';
import { platformInfo } from '../kernel/platform-info.js';
import { callPlatformTool, serverIcon } from './server.js';
import { tools } from './tools.js';
import { platformToolsetId } from '../operations/builtin-servers.js';
import type { BuiltinServers } from '../operations/services.js';

// The platform's own toolset: invoking it runs the tool in-process for the caller, as `/mcp` would
// (docs/decisions.md: no workflow, nothing is called out).

const title = 'Platform toolset';

/** The persona as an artifact, for GET /artifacts/{id}. */
export function builtinArtifact() {
  return {
    id: platformToolsetId,
    title,
    content_type: mcpServerType,
    content: JSON.stringify({
      transport: { type: 'builtin', name: 'platform' },
      notes: 'The tools of this platform (§4.5), served in-process.',
    }),
    context: { builtin: true },
    collection_id: null,
    container: null,
    state: 'committed',
    revision: 1,
  };
}

/** The persona's catalog entry: the platform's tools, always healthy while the API answers. */
export function builtinCatalogEntry(ctx: OperationContext) {
  const principal = ctx.state.principal;
  return {
    id: platformToolsetId,
    title,
    workspace_id: null,
    builtin: true,
    transport: 'builtin',
    server_info: platformInfo,
    icon: serverIcon,
    health: { status: 'ok' as const, checked_at: new Date().toISOString() },
    tools: tools
      .filter((t) => principal.scopes.allows(t.access))
      .map((t) => ({
        name: t.name,
        title: t.title,
        description: t.description,
        input_schema: z.toJSONSchema(t.input, { io: 'input' }),
        annotations: t.annotations,
        icon: t.icon,
      })),
    resources: [],
    content_types: [],
  };
}

/** Calls one of the platform's tools with the caller's own principal: the same checks as over /mcp. */
export async function callBuiltin(ctx: OperationContext, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  const tool = tools.find((t) => t.name === name);
  if (!tool)
    return { isError: true, content: [{ type: 'text', text: `The platform toolset has no tool named ${name}; see GET /mcp/servers.` }] };
  const input = tool.input.safeParse(args);
  if (!input.success) {
    const issue = input.error.issues[0]!;
    return {
      isError: true,
      content: [{ type: 'text', text: `Invalid arguments for ${name}: ${issue.path.join('.') || 'arguments'} ${issue.message}` }],
    };
  }
  // The same wire shape under the operations' (SDK v1) type: v2 types structuredContent as unknown.
  return (await callPlatformTool(ctx, tool, input.data)).result as CallToolResult;
}

/** The built-in servers as the operations see them: wired into the services by the API's composition root. */
export const builtinServers: BuiltinServers = { artifact: builtinArtifact, catalogEntry: builtinCatalogEntry, call: callBuiltin };
