/** Invocations as REST and MCP show them: an MCP call, an agent run, a transform run. */
import { agentId } from '../invocations/agents/registry.js';
import { contentDiffs, type DiffSources } from '../invocations/proposed-actions/diff.js';
import type { RecordedAction } from '../invocations/proposed-actions/schema.js';
import type { AgentRunState } from '../workflows/contracts/agent-run.js';
import { invocationWorkflowId } from '../workflows/contracts/ids.js';
import type { McpRunResult, McpRunState } from '../workflows/contracts/mcp-run.js';
import type { TransformRunState } from '../workflows/contracts/transform-run.js';

/** An agent run as REST presents it: its proposals and what became of them. */
export function presentAgentRun(state: AgentRunState) {
  const id = state.invocation_id;
  return {
    invocation_id: id,
    workflow_id: invocationWorkflowId(id),
    kind: state.agent === 'llm' ? 'llm' : 'task_agent',
    agent: { id: state.server_id ?? agentId(state.agent), name: state.agent },
    mode: state.mode,
    workspace_id: state.workspace_id,
    artifact_ids: state.artifact_ids,
    status: state.status,
    output: state.output,
    actions: state.actions,
    progress: state.progress,
    ...(state.decision ? { decision: state.decision } : {}),
    ...(state.error ? { error: state.error } : {}),
    ...(state.automation ? { automation: state.automation } : {}),
    started_at: state.started_at,
    ...(state.expires_at ? { expires_at: state.expires_at } : {}),
    ...(state.completed_at ? { completed_at: state.completed_at } : {}),
    poll: `/invocations/${id}`,
    ...(state.status === 'awaiting_decision' ? { apply: `/invocations/${id}/apply`, discard: `/invocations/${id}/discard` } : {}),
  };
}

/**
 * An agent run as GET /invocations/{id} shows it: each update that changes a draft's content also
 * carries `content_diff` (and `content_diff_truncated`), from the revision it was proposed against.
 */
export async function withContentDiffs<T extends { workspace_id: string; actions: RecordedAction[] }>(
  run: T,
  sources: Omit<DiffSources, 'workspaceId'>,
): Promise<T> {
  const diffs = await contentDiffs(run.actions, { ...sources, workspaceId: run.workspace_id });
  if (diffs.size === 0) return run;
  return { ...run, actions: run.actions.map((a) => ({ ...a, ...diffs.get(a.id) })) };
}

export function presentTransformRun(state: TransformRunState) {
  const id = state.invocation_id;
  return {
    ...state,
    workflow_id: invocationWorkflowId(id),
    poll: `/invocations/${id}`,
    ...(state.status === 'awaiting_approval' ? { approve: `/invocations/${id}/approve`, reject: `/invocations/${id}/reject` } : {}),
  };
}

/** An invocation as REST presents it, running or done. */
export function presentInvocation(
  state: Pick<McpRunState, 'invocation_id' | 'server_id' | 'workspace_id' | 'operation' | 'tool' | 'uri' | 'started_at' | 'completed_at'>,
  outcome: McpRunResult | null | undefined,
) {
  return {
    invocation_id: state.invocation_id,
    workflow_id: invocationWorkflowId(state.invocation_id),
    kind: state.operation === 'call_tool' ? 'mcp_tool_call' : 'mcp_resource_read',
    server_id: state.server_id,
    workspace_id: state.workspace_id,
    ...(state.tool ? { tool: state.tool } : {}),
    ...(state.uri ? { uri: state.uri } : {}),
    status: outcome ? 'completed' : 'running',
    ...(state.started_at ? { started_at: state.started_at } : {}),
    ...(state.completed_at ? { completed_at: state.completed_at } : {}),
    ...(outcome && 'result' in outcome ? { result: outcome.result } : {}),
    poll: `/invocations/${state.invocation_id}`,
  };
}
