import { WorkflowFailedError, type Client } from '@temporalio/client';
import { failureResult } from '../mcp-client/failure.js';
import { within } from '../temporal/within.js';
import type { Config } from '../kernel/config/env.js';
import { ArtifactId, McpTool, PrincipalId, RunKind, WorkspaceId } from '../temporal/search-attributes.js';
import { mcpRunType, type McpRun } from '../workflows/contracts/mcp-run.js';
import { type McpRunInput, type McpRunResult } from '../workflows/contracts/mcp-run.js';
import { startOnce } from '../temporal/start-once.js';

const runKinds = { call_tool: 'mcp_tool_call', read_resource: 'mcp_resource_read', refresh_catalog: 'mcp_catalog' } as const;

/** The API's side of external MCP runs: start one (or find it started), wait a bounded time, read its state. */
export class ToolCallWorkflows {
  constructor(
    private readonly client: Client,
    private readonly config: Config,
  ) {}

  /** Starts the run; the same id again (a retried request) attaches to the run already started. */
  async start(workflowId: string, input: McpRunInput): Promise<void> {
    const op = input.operation;
    const tool = input.lifecycle?.tool ?? (op.kind === 'call_tool' ? op.name : op.kind);
    // A call whose attempt is bounded short runs as a local activity (docs/decisions.md, issue #23).
    const local =
      op.kind === 'call_tool' &&
      !input.lifecycle &&
      op.timeoutMs !== undefined &&
      op.timeoutMs <= this.config.MCP_CALL_LOCAL_MAX_SECONDS * 1000;
    await startOnce<McpRun>(
      this.client,
      mcpRunType,
      {
        workflowId,
        taskQueue: this.config.TEMPORAL_TASK_QUEUE,
        args: [local ? { ...input, local } : input],
        // A catalog refresh may run again once finished; an invocation id is used once.
        workflowIdReusePolicy: op.kind === 'refresh_catalog' ? 'ALLOW_DUPLICATE' : 'REJECT_DUPLICATE',
        typedSearchAttributes: [
          { key: WorkspaceId, value: input.workspaceId },
          { key: ArtifactId, value: input.serverId },
          { key: PrincipalId, value: input.principalId },
          { key: RunKind, value: input.lifecycle ? 'type_lifecycle' : runKinds[op.kind] },
          { key: McpTool, value: tool },
        ],
      },
      { eager: true },
    );
  }

  /**
   * The run's outcome if it ends within `waitMs`, else null (the caller polls). A run that failed or
   * was terminated (from the Temporal UI, say) is an error result, not an exception.
   */
  async wait(workflowId: string, waitMs: number): Promise<McpRunResult | null> {
    const result = this.client.workflow
      .getHandle<McpRun>(workflowId)
      .result()
      .catch((err: unknown): McpRunResult => {
        if (!(err instanceof WorkflowFailedError)) throw err;
        return {
          kind: 'tool_result',
          result: failureResult(
            { retryable: false, kind: 'unavailable', message: `The run ended without an answer: ${err.cause?.message ?? err.message}` },
            1,
          ),
        };
      });
    return (await within(result, waitMs))?.value ?? null;
  }
}
