import { agentById } from '../invocations/agents/registry.js';
import { problems } from '../kernel/errors/problem.js';
import { parse } from '../kernel/errors/validation.js';
import { baseType, mcpServerType, transformType } from '../artifacts/content-types/index.js';
import type { InvocationState } from '../workflows/contracts/invocation.js';
import type { TransformRunState } from '../workflows/contracts/transform-run.js';
import { isBuiltinServer } from './builtin-servers.js';
import { visibleArtifact } from './artifacts.js';
import type { OperationContext } from './services.js';
import { agentInvokeBody, invokeAgent, invokeServerAgent, isAgentRun, readableInvocation, serverAgentBody } from './agent-runs.js';
import { callTool, callToolBody, type Answer } from './mcp-servers.js';
import { invokeTransform, transformInvokeBody } from './transforms.js';
import { presentAgentRun, presentInvocation, presentTransformRun, withContentDiffs } from '../presenters/invocations.js';
import type { RecordedAction } from '../invocations/proposed-actions/schema.js';

/** The one door to every kind of invocation: what the target is decides which runs. */

const isTransformRun = (s: InvocationState): s is TransformRunState => 'kind' in s && s.kind === 'transform';

/** GET /invocations/{id}: a tool call, an agent run, as each presents itself. */
export async function getInvocation(ctx: OperationContext, invocationId: string) {
  const state = await readableInvocation(ctx, invocationId);
  if (isAgentRun(state)) return presentAgentRun(state);
  if (isTransformRun(state)) return presentTransformRun(state);
  return presentInvocation(state, state.outcome);
}

const notInvocable = (id: string, type: string) =>
  problems.conflict(
    'not-invocable',
    `Artifact ${id} is a ${type}. Invocable are MCP servers (${mcpServerType}), transforms (${transformType}), built-in agents (GET /agents) and the built-in platform toolset.`,
  );

/**
 * `POST /artifacts/{id}/invoke` (SPEC §4.3): the target decides the mode. An MCP server: tool mode
 * ({name, arguments}), or one of its tools as an agent ({tool, …}); a built-in agent: task-agent
 * mode, or LLM mode for the `llm` agent; a transform: a transform run.
 */
export async function invoke(ctx: OperationContext, id: string, body: unknown, idempotencyKey?: string): Promise<Answer> {
  const agent = agentById(id);
  if (agent) return invokeAgent(ctx, agent, parse(agentInvokeBody, body, 'body'), idempotencyKey);
  if (isBuiltinServer(id)) return callTool(ctx, id, parse(callToolBody, body, 'body'), idempotencyKey);
  const found = await visibleArtifact(ctx, id);
  if (baseType(found.doc.content_type) === mcpServerType) {
    // With `tool`, the server's tool runs as an agent; with `name`, it is simply called.
    if (body && typeof body === 'object' && 'tool' in body)
      return invokeServerAgent(ctx, found, parse(serverAgentBody, body, 'body'), idempotencyKey);
    return callTool(ctx, id, parse(callToolBody, body, 'body'), idempotencyKey, found);
  }
  if (baseType(found.doc.content_type) === transformType)
    return invokeTransform(ctx, found, parse(transformInvokeBody, body, 'body'), idempotencyKey);
  throw notInvocable(id, found.doc.content_type);
}

type AgentRunBody = { workspace_id: string; actions: RecordedAction[] };
const isAgentRunBody = (body: unknown): body is AgentRunBody =>
  typeof body === 'object' && body !== null && 'actions' in body && Array.isArray(body.actions) && 'workspace_id' in body;

/** An agent run's answer (read, applied, discarded) with its updates' content diffs, as far as the caller may read the drafts. */
export async function withDiffs(ctx: OperationContext, body: unknown): Promise<unknown> {
  if (!isAgentRunBody(body)) return body;
  const { artifacts } = ctx.services;
  const { principal } = ctx.state;
  return withContentDiffs(body, {
    mayRead: (type) => principal.scopes.allowsType('artifact:read', type),
    getMany: (ids) => artifacts.currentMany(ids),
    revisionAt: (id, n) => artifacts.revisionAt(id, n),
  });
}
