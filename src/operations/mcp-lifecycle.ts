import { v7 as uuidv7 } from 'uuid';
import { baseType, platformTypeDefinition } from '../artifacts/content-types/index.js';
import type { LifecycleTool } from '../artifacts/content-types/type-definition.js';
import { lifecycleServer, serverWithTool, typeServers, viewerOf } from '../mcp-client/lifecycle.js';
import type { ArtifactDoc } from '../store/artifacts.js';
import type { ContainerDoc } from '../store/containers.js';
import { invocationWorkflowId } from '../workflows/contracts/ids.js';
import type { OperationContext } from './services.js';
import { mayInvokeIn } from './mcp-permissions.js';

// SPEC §4.6: the lifecycle tools a content type's server may implement, called as MCP runs for the
// person who opened the artifact (on_open); on_create is called before the write (on-create.ts).

async function startLifecycleOn(ctx: OperationContext, doc: ArtifactDoc, tool: LifecycleTool, serverId: string): Promise<string> {
  const invocationId = uuidv7();
  const { config } = ctx.services;
  await ctx.services.toolCallWorkflows.start(invocationWorkflowId(invocationId), {
    invocationId,
    serverId,
    workspaceId: doc.collection_id,
    principalId: ctx.state.principal.subject,
    // The activity reads the artifact: its content does not travel in workflow input.
    operation: { kind: 'call_tool', name: tool, arguments: {}, maxTotalMs: config.MCP_CALL_MAX_SECONDS * 1000 }, // the server's own timeout applies
    lifecycle: { tool, artifactId: doc._id },
  });
  return invocationId;
}

/**
 * POST /artifacts/{id}/open: what a viewer host calls when it shows an artifact. The type's server
 * gets `on_open` (skipped when it has none), and the answer carries the §2.10 type definition as
 * rendering hints, and the type's viewer (§4.7) for those who may call the server that serves it.
 */
export async function openArtifact(ctx: OperationContext, doc: ArtifactDoc, container: ContainerDoc) {
  const servers = doc.container_kind === 'workspace' ? await typeServers(ctx.services.mcpCatalog, doc.collection_id, doc.content_type) : [];
  const type =
    platformTypeDefinition(doc.content_type) ?? servers[0]?.content_types.find((t) => t.mime === baseType(doc.content_type)) ?? null;
  // on_open calls out with the server's credentials: only for those who may call the workspace's servers.
  const mayInvoke = mayInvokeIn(ctx.state.principal, container);
  const viewer = mayInvoke && servers[0] ? viewerOf(servers[0], type?.ui.viewer) : null;
  const serverId = mayInvoke ? serverWithTool(servers, 'on_open') : null;
  const invocationId = serverId && (await startLifecycleOn(ctx, doc, 'on_open', serverId));
  if (!invocationId)
    return {
      type,
      viewer,
      on_open: {
        status: 'skipped' as const,
        ...(mayInvoke ? {} : { reason: 'on_open needs artifact:invoke and the I grant on the workspace' }),
      },
    };
  const outcome = await ctx.services.toolCallWorkflows.wait(
    invocationWorkflowId(invocationId),
    ctx.services.config.MCP_INVOKE_WAIT_SECONDS * 1000,
  );
  return {
    type,
    viewer,
    on_open:
      outcome && 'result' in outcome
        ? { status: 'completed' as const, invocation_id: invocationId, result: outcome.result }
        : { status: 'running' as const, invocation_id: invocationId, poll: `/invocations/${invocationId}` },
  };
}
