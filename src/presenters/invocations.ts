/** Invocations as REST and MCP show them: a tool call, an agent run, a transform run. */
import { agentId } from '../invocations/agents/registry.js';
import { contentDiffs, type DiffSources } from '../invocations/proposed-actions/diff.js';
import type { RecordedAction } from '../invocations/proposed-actions/schema.js';
import type { AgentRunState } from '../workflows/contracts/agent-run.js';
import { invocationWorkflowId } from '../workflows/contracts/ids.js';
import type { McpRunResult, McpRunState } from '../workflows/contracts/mcp-run.js';
import type { TransformRunState } from '../workflows/contracts/transform-run.js';
import { z } from 'zod';
import { count, openObject, timestamp } from './schemas.js';

const automationSchema = z.object({
  automation_id: z.string(),
  event_id: z.string(),
  event_kind: z.string(),
  artifact_id: z.string(),
  depth: count,
});

/** An action an agent proposed, as its run records it, and what became of it. */
export const recordedActionSchema = z
  .object({
    id: z.string().describe('a1, a2, … in proposal order'),
    kind: z.enum(['create', 'update', 'delete', 'log']),
    target: z.string(),
    payload: openObject,
    rationale: z.string(),
    status: z.enum(['proposed', 'refused', 'applied', 'conflict', 'discarded', 'skipped']),
    base_revision: count.optional(),
    reason: z.string().optional(),
    artifact_id: z.string().optional(),
    content_diff: z.string().optional().describe('GET /invocations/{id}: an update of the content, as a unified diff.'),
    content_diff_truncated: z.boolean().optional(),
  })
  .meta({ id: 'RecordedAction' });

const decisionSchema = z.object({
  action: z.enum(['apply', 'discard']),
  by: z.string(),
  at: timestamp,
  action_ids: z.array(z.string()).optional(),
  discard_rest: z.boolean().optional(),
});

/** A task agent's or an LLM's run over a workspace: its proposals, and the decision on them. */
export const agentRunSchema = z
  .object({
    invocation_id: z.string(),
    workflow_id: z.string(),
    kind: z.enum(['llm', 'task_agent']),
    agent: z.object({ id: z.string(), name: z.string() }),
    mode: z.enum(['preview', 'apply']),
    workspace_id: z.string(),
    artifact_ids: z.array(z.string()),
    status: z.enum(['running', 'awaiting_decision', 'applying', 'completed', 'discarded', 'expired', 'refused', 'failed']),
    output: z.string().nullable(),
    actions: z.array(recordedActionSchema),
    progress: z
      .object({
        total: count.describe('Every action the agent proposed, whatever became of it.'),
        proposed: count.describe('Still awaiting a decision.'),
        applied: count,
        skipped: count,
        discarded: count,
        refused: count,
        conflict: count,
      })
      .describe('What became of the actions, counted from them: at every state, the counts add up to `total`.'),
    decision: decisionSchema.optional().describe('The last decision taken.'),
    decisions: z.array(decisionSchema).optional().describe('Every decision, in order: a preview may be decided in parts.'),
    error: z.object({ type: z.string(), message: z.string() }).optional(),
    automation: automationSchema.optional(),
    started_at: timestamp,
    expires_at: timestamp.optional(),
    completed_at: timestamp.optional(),
    poll: z.string(),
    apply: z.string().optional(),
    discard: z.string().optional(),
  })
  .meta({ id: 'AgentRun' });
export type AgentRun = z.output<typeof agentRunSchema>;

/** A transform's run: its steps, the one it is at, and where to approve when it waits for a person. */
export const transformRunSchema = z
  .object({
    invocation_id: z.string(),
    workflow_id: z.string(),
    kind: z.literal('transform'),
    transform_id: z.string(),
    revision: count,
    workspace_id: z.string(),
    principal_id: z.string(),
    status: z.enum(['running', 'awaiting_approval', 'completed', 'failed', 'rejected', 'expired']),
    current_step: z.string().nullable(),
    steps: z.array(
      z.object({
        id: z.string(),
        kind: z.enum(['agent', 'llm', 'tool', 'approval']),
        status: z.enum(['pending', 'running', 'awaiting_approval', 'completed', 'failed', 'skipped', 'rejected', 'expired']),
        attempts: count,
        output: z.string().nullable().optional(),
        artifact_ids: z.array(z.string()).optional(),
        invocation_id: z.string().optional(),
        decision: z
          .object({ action: z.enum(['approve', 'reject']), by: z.string(), comment: z.string().nullable(), at: timestamp })
          .optional(),
        error: z.string().optional(),
        started_at: timestamp.optional(),
        completed_at: timestamp.optional(),
      }),
    ),
    started_at: timestamp,
    completed_at: timestamp.optional(),
    automation: automationSchema.optional(),
    poll: z.string(),
    approve: z.string().optional(),
    reject: z.string().optional(),
  })
  .meta({ id: 'TransformRun' });
export type TransformRun = z.output<typeof transformRunSchema>;

/**
 * An MCP tool call or resource read, running or done. A call to the built-in platform toolset runs
 * in-process: its ids and workspace are null, and there is nothing to poll.
 */
export const toolCallSchema = z
  .object({
    invocation_id: z.string().nullable(),
    workflow_id: z.string().nullable(),
    kind: z.enum(['mcp_tool_call', 'mcp_resource_read']),
    server_id: z.string(),
    workspace_id: z.string().nullable(),
    tool: z.string().optional(),
    uri: z.string().optional(),
    status: z.enum(['running', 'completed']),
    started_at: timestamp.optional(),
    completed_at: timestamp.optional(),
    result: openObject.optional().describe('The MCP result (CallToolResult, ReadResourceResult) as the server sent it.'),
    poll: z.string().optional(),
  })
  .meta({ id: 'ToolCall' });
export type ToolCall = z.output<typeof toolCallSchema>;

/** A run that did not settle within the wait (202): where to poll it. */
export const pendingRunSchema = z
  .object({
    invocation_id: z.string(),
    workflow_id: z.string(),
    status: z.literal('running'),
    poll: z.string(),
  })
  .meta({ id: 'PendingRun' });

/** 202: a run still going. An agent or transform run says where to poll; a tool call is its invocation, running. */
export const runningInvocationSchema = z.union([pendingRunSchema, toolCallSchema]);

/** `GET /invocations/{id}` and the decisions: an agent run, a transform run or a tool call. */
export const invocationSchema = z.union([agentRunSchema, transformRunSchema, toolCallSchema]);

/** `GET /agents`: the built-in task agents and the parameters each takes. */
export const agentSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    title: z.string(),
    description: z.string(),
    mode: z.enum(['llm', 'task_agent']),
    uses_llm: z.boolean(),
    actions: z.array(z.enum(['create', 'update', 'delete', 'log'])),
    params_schema: openObject.describe('JSON Schema of `params`.'),
  })
  .meta({ id: 'Agent' });

/** Counts of the actions by what became of them (issue #37: true at every state, not only while applying). */
export function progressOf(actions: RecordedAction[]): AgentRun['progress'] {
  const progress = { total: actions.length, proposed: 0, applied: 0, skipped: 0, discarded: 0, refused: 0, conflict: 0 };
  for (const a of actions) progress[a.status] += 1;
  return progress;
}

/** An agent run as REST presents it: its proposals and what became of them. */
export function presentAgentRun(state: AgentRunState): AgentRun {
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
    progress: progressOf(state.actions),
    ...(state.decision ? { decision: state.decision } : {}),
    ...(state.decisions ? { decisions: state.decisions } : {}),
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

export function presentTransformRun(state: TransformRunState): TransformRun {
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
): ToolCall & { invocation_id: string; workflow_id: string; poll: string } {
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
