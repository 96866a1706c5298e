import { isCancellation, proxyActivities, proxyLocalActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { CallToolResult, ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import type { Activities } from '../activities/index.js';
import { type McpRunInput, type McpRunResult, type McpRunState, mcpRunStateQuery } from './contracts/mcp-run.js';
import { exhausted, retry } from './tool-call-retry-policy.js';

/**
 * One call to an external MCP server (id `invoke-<invocation>`; catalog refreshes `mcp-catalog-<server>`):
 * the activity that makes it resolves the server's credentials, so they never enter this history.
 * Transient failures are retried with backoff; when the attempts run out the caller still gets a tool
 * result carrying the last status and body, never a failed run without an answer.
 */
export async function mcpRun(input: McpRunInput): Promise<McpRunResult> {
  const { operation: op } = input;
  const state: McpRunState = {
    invocation_id: input.invocationId,
    server_id: input.serverId,
    workspace_id: input.workspaceId,
    principal_id: input.principalId,
    operation: op.kind,
    ...(op.kind === 'call_tool' ? { tool: op.name } : {}),
    ...(op.kind === 'read_resource' ? { uri: op.uri } : {}),
    status: 'running',
    started_at: new Date(workflowInfo().startTime).toISOString(),
  };
  setHandler(mcpRunStateQuery, () => state);

  const callBudgetMs = op.kind === 'call_tool' ? op.maxTotalMs : op.kind === 'read_resource' ? op.timeoutMs : 60_000;
  const acts = proxyActivities<Activities>({ startToCloseTimeout: callBudgetMs + 30_000, heartbeatTimeout: '10 seconds', retry });
  // A call expected to be short runs as a local activity: made within the run's first workflow task, with
  // no activity task and no second workflow task through the server. It is retried the same way, and
  // made again by the next worker if this one dies (the workflow task times out); it reports no progress.
  const call =
    input.local && op.kind === 'call_tool' ? proxyLocalActivities<Activities>({ startToCloseTimeout: callBudgetMs + 30_000, retry }) : acts;

  let outcome: McpRunResult;
  try {
    if (op.kind === 'call_tool') {
      // Before the write, the artifact is in the arguments: there is none to read yet.
      const artifactId = input.lifecycle?.beforeWrite ? undefined : input.lifecycle?.artifactId;
      outcome = {
        kind: 'tool_result',
        result: await call.callMcpTool({
          serverId: input.serverId,
          ...(input.serverRevision !== undefined ? { revision: input.serverRevision } : {}),
          name: op.name,
          arguments: op.arguments,
          ...(artifactId ? { artifactId } : {}),
          ...(op.timeoutMs ? { timeoutMs: op.timeoutMs } : {}),
          maxTotalMs: op.maxTotalMs,
          person: input.principalId,
          ...(input.delegation ? { delegation: input.delegation } : {}),
        }),
      };
    } else if (op.kind === 'read_resource')
      outcome = asResource(
        await acts.readMcpResource({ serverId: input.serverId, uri: op.uri, timeoutMs: op.timeoutMs, person: input.principalId }),
      );
    else outcome = { kind: 'catalog', ...(await acts.refreshMcpCatalog(input.serverId, input.principalId)) };
    if (
      input.lifecycle?.tool === 'on_create' &&
      !input.lifecycle.beforeWrite &&
      outcome.kind === 'tool_result' &&
      !outcome.result.isError
    ) {
      const context = (outcome.result.structuredContent as { context?: unknown } | undefined)?.context;
      if (context && typeof context === 'object' && !Array.isArray(context))
        await acts.mergeArtifactContext({ artifactId: input.lifecycle.artifactId, context: context as Record<string, unknown> });
    }
  } catch (err) {
    if (isCancellation(err)) throw err;
    outcome = { kind: 'tool_result', result: exhausted(err) };
  }
  state.status = 'completed';
  state.completed_at = new Date().toISOString();
  state.outcome = outcome;
  return outcome;
}

/** A resource read that failed comes back from the activity as an error tool result. */
function asResource(r: ReadResourceResult | CallToolResult): McpRunResult {
  return 'contents' in r ? { kind: 'resource', result: r as ReadResourceResult } : { kind: 'tool_result', result: r as CallToolResult };
}
