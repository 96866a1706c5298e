import { z } from 'zod';
import { actionNeeds } from '../invocations/proposed-actions/permissions.js';
import { agentId } from '../invocations/agents/registry.js';
import type { Agent } from '../invocations/agents/types.js';
import { grantsOf, requireGrant } from '../identity/grants.js';
import { snapshotOf } from '../identity/principal.js';
import { Problem, problems } from '../kernel/errors/problem.js';
import { invocationWorkflowId } from '../workflows/contracts/ids.js';
import { invocationIdFor } from '../invocations/idempotency.js';
import { llmConfigured } from '../llm/client.js';
import { type AgentRunState } from '../workflows/contracts/agent-run.js';
import type { InvocationState } from '../workflows/contracts/invocation.js';
import { visibleArtifact } from './artifacts.js';
import type { OperationContext } from './services.js';
import { invocableServer, waitSeconds, type Answer, type InvocableServer } from './mcp-servers.js';
import { actionKinds } from '../invocations/proposed-actions/schema.js';
import type { ArtifactDoc } from '../store/artifacts.js';
import type { ContainerDoc } from '../store/containers.js';
import { presentAgentRun } from '../presenters/invocations.js';
import { uuid } from '../kernel/json/schemas.js';

const agentWait = waitSeconds.describe(
  'How long to wait for the proposals (or, in apply mode, the outcome) before answering 202 with the invocation to poll.',
);

/** `POST /artifacts/{agent_id}/invoke`: task-agent and LLM mode (docs/decisions.md). */
export const agentInvokeBody = z.strictObject({
  workspace_id: uuid()
    .optional()
    .describe("The workspace the agent works in: its actions stay in it. Default: the first context artifact's workspace, else yours."),
  artifact_ids: z
    .array(uuid())
    .max(200)
    .default([])
    .describe("Context artifacts (in the workspace or in collections you can read). None: the workspace's drafts."),
  input: z.string().trim().min(1).max(50_000).optional().describe('Free text: the instruction or question.'),
  params: z
    .record(z.string(), z.unknown())
    .default({})
    .describe("The agent's structured parameters (GET /agents lists each agent's schema)."),
  mode: z
    .enum(['preview', 'apply'])
    .default('preview')
    .describe('preview: record the proposals and wait for apply or discard. apply: apply at once (needs permission for every action).'),
  wait_seconds: agentWait,
});
export type AgentInvokeBody = z.infer<typeof agentInvokeBody>;

const actionIds = z
  .array(z.string().regex(/^a\d{1,6}$/, 'must be an action id such as a1'))
  .min(1)
  .max(5000)
  .refine((ids) => new Set(ids).size === ids.length, 'must not name an action twice');

/** `POST /invocations/{id}/apply`. */
export const applyBody = z.strictObject({
  action_ids: actionIds
    .optional()
    .describe(
      'Apply only these; all proposed actions when absent. The others stay proposed, to apply or discard later, until the run expires.',
    ),
  discard_rest: z
    .boolean()
    .default(false)
    .describe('With action_ids: discard every action still proposed once these are applied; the run ends.'),
  wait_seconds: agentWait,
});

/** `POST /invocations/{id}/discard` (a body is optional). */
export const discardBody = z.strictObject({
  action_ids: actionIds
    .optional()
    .describe('Discard only these; the others stay proposed. All actions still proposed when absent: the run ends.'),
});

/** Throws unless the principal may apply every kind of action the agent may propose, in this workspace. */
export function requireApplyPermissions(ctx: OperationContext, agent: Agent, workspace: Parameters<typeof requireGrant>[0]): void {
  const principal = ctx.state.principal;
  for (const kind of agent.actions) {
    const needs = actionNeeds[kind];
    if (!needs) continue;
    if (!principal.scopes.allows(needs.scope))
      throw problems.insufficientScope(`${needs.scope} (apply mode: the ${agent.name} agent may propose ${kind} actions)`);
    requireGrant(workspace, principal, needs.flag);
  }
}

/** The workspace an invocation works in: named, else the first context artifact's, else the caller's default. */
export async function invocationWorkspace(
  ctx: OperationContext,
  body: { workspace_id?: string | undefined; artifact_ids: string[] },
  fallback?: string,
) {
  const principal = ctx.state.principal;
  const context = await Promise.all(body.artifact_ids.map((id) => visibleArtifact(ctx, id)));
  const id = body.workspace_id ?? fallback ?? context.find((c) => c.container.kind === 'workspace')?.container._id;
  // A context artifact's workspace was just read with the same visibility filter: not read again.
  const read = id && context.find((c) => c.container.kind === 'workspace' && c.container._id === id)?.container;
  const workspace =
    read ||
    (id ? await ctx.services.containers.get('workspace', principal, id) : await ctx.services.containers.defaultWorkspace(principal));
  if (!workspace) throw problems.notFound('workspace', id);
  requireGrant(workspace, principal, 'I');
  return workspace;
}

/** `POST /artifacts/{server_id}/invoke` with `tool`: an MCP server's tool run as an agent. */
export const serverAgentBody = agentInvokeBody.extend({
  tool: z.string().min(1).max(256).describe('The tool that acts as the agent: it answers structuredContent {actions, output}.'),
});

/** An MCP server's tool as an agent (docs/decisions.md): it may propose any kind of action. */
function serverAgentOf(server: InvocableServer, tool: string): Agent & { server: { id: string; revision: number; tool: string } } {
  return {
    name: `mcp:${tool}`,
    title: tool,
    description: `Tool ${tool} of MCP server ${server.doc._id}`,
    usesLlm: false,
    actions: actionKinds,
    params: z.record(z.string(), z.unknown()),
    run: async () => ({ actions: [] }),
    server: { id: server.doc._id, revision: server.doc.revision, tool },
  };
}

/** Runs an MCP server's tool as an agent, in the server's workspace unless another is named. */
export async function invokeServerAgent(
  ctx: OperationContext,
  found: { doc: ArtifactDoc; container: ContainerDoc },
  body: z.infer<typeof serverAgentBody>,
  idempotencyKey?: string,
): Promise<Answer> {
  const server = await invocableServer(ctx, found.doc._id, found);
  const { tool, ...rest } = body;
  return invokeAgent(
    ctx,
    serverAgentOf(server, tool),
    { ...rest, workspace_id: rest.workspace_id ?? server.container._id },
    idempotencyKey,
  );
}

/** Starts an agent (task-agent or LLM mode) over a workspace, and answers with its proposals or outcome when they come within the wait. */
export async function invokeAgent(
  ctx: OperationContext,
  agent: Agent & { server?: { id: string; revision: number; tool: string } },
  body: AgentInvokeBody,
  idempotencyKey?: string,
): Promise<Answer> {
  const { invocationId, state } = await startAgent(ctx, agent, body, idempotencyKey);
  return answerWith(state, invocationId, presentAgentRun);
}

/** Checks and starts an agent run; its state once settled within the wait, else null. */
export async function startAgent(
  ctx: OperationContext,
  agent: Agent & { server?: { id: string; revision: number; tool: string } },
  body: AgentInvokeBody,
  idempotencyKey?: string,
): Promise<{ invocationId: string; state: AgentRunState | null }> {
  const principal = ctx.state.principal;
  const { config } = ctx.services;
  const params = agent.params.safeParse(body.params);
  if (!params.success) {
    const invalid = params.error.issues.map((i) => ({ name: ['params', ...i.path.map(String)].join('.'), reason: i.message }));
    throw problems.validation(`body ${invalid[0]!.name}: ${invalid[0]!.reason}`, invalid);
  }
  if (agent.name === 'llm' && !body.input)
    throw problems.validation('body input: LLM mode needs the instruction or question.', [
      { name: 'input', reason: 'is required in LLM mode' },
    ]);
  const workspace = await invocationWorkspace(ctx, body);
  if (body.mode === 'apply') requireApplyPermissions(ctx, agent, workspace);
  if (agent.usesLlm && !llmConfigured(config)) throw llmNotConfigured(agent.name);

  const { wait_seconds, ...request } = body;
  const target = agent.server?.id ?? agentId(agent.name);
  const invocationId = invocationIdFor(principal.subject, target, idempotencyKey, {
    ...request,
    workspace_id: workspace._id,
    agent: agent.name,
  });
  await ctx.services.invocationWorkflows.startAgentRun({
    invocationId,
    agent: agent.name,
    ...(agent.server ? { server: agent.server } : {}),
    callsOut: agent.usesLlm || Boolean(agent.server),
    mode: body.mode,
    workspaceId: workspace._id,
    artifactIds: body.artifact_ids,
    input: body.input ?? null,
    params: params.data,
    principal: snapshotOf(principal),
    previewExpirySeconds: config.INVOKE_PREVIEW_EXPIRY_SECONDS,
  });
  const waitMs = (wait_seconds ?? config.MCP_INVOKE_WAIT_SECONDS) * 1000;
  // Apply mode settles when the run ends: its result is awaited (no update that may come after the end).
  const workflows = ctx.services.invocationWorkflows;
  return {
    invocationId,
    state: await (body.mode === 'apply' ? workflows.finished(invocationId, waitMs) : workflows.settled(invocationId, waitMs)),
  };
}

export const llmNotConfigured = (what: string) =>
  new Problem(
    503,
    'llm-not-configured',
    'No language model is configured',
    `${what} needs a language model: set LLM_MODEL (and OPENAI_BASE_URL, OPENAI_API_KEY) for an OpenAI-compatible endpoint.`,
  );

/** A run's state when it settled within the wait, else 202 with where to poll. */
export function answerWith<S>(state: S | null, invocationId: string, present: (s: S) => unknown): Answer {
  const poll = `/invocations/${invocationId}`;
  if (!state)
    return {
      status: 202,
      body: { invocation_id: invocationId, workflow_id: invocationWorkflowId(invocationId), status: 'running', poll },
      location: poll,
    };
  return { status: 200, body: present(state) };
}

export const isAgentRun = (s: InvocationState): s is AgentRunState => 'kind' in s && s.kind === 'agent_run';

/**
 * An invocation the principal may see: one it started, or one in a workspace it administers (A).
 * Anyone else gets 404, as for an invocation that does not exist.
 */
export async function readableInvocation(ctx: OperationContext, invocationId: string): Promise<InvocationState> {
  const principal = ctx.state.principal;
  const state = await ctx.services.invocationWorkflows.state(invocationId);
  const container = state && (await ctx.services.containers.get('workspace', principal, state.workspace_id));
  const mayRead = container && (state.principal_id === principal.subject || grantsOf(container, principal.subject).has('A'));
  if (!state || !mayRead || ('operation' in state && state.operation === 'refresh_catalog'))
    throw problems.notFound('invocation', invocationId);
  return state;
}

async function agentRunToDecide(ctx: OperationContext, invocationId: string): Promise<AgentRunState> {
  const state = await readableInvocation(ctx, invocationId);
  if (!isAgentRun(state))
    throw problems.conflict(
      'invocation-not-pending',
      `Invocation ${invocationId} is ${'kind' in state && state.kind === 'transform' ? 'a transform: approve or reject its approval step' : 'a tool call'}; it has no proposals to decide on.`,
    );
  return state;
}

/**
 * Applies the proposals (all, or the chosen ones) with the decider's own permissions; answers once
 * applied, or 202 within the wait. Chosen ones leave the rest proposed (issue #37), unless `discard_rest`.
 */
export async function applyInvocation(ctx: OperationContext, invocationId: string, body: z.infer<typeof applyBody>): Promise<Answer> {
  await agentRunToDecide(ctx, invocationId);
  const principal = ctx.state.principal;
  if (body.discard_rest && !body.action_ids)
    throw problems.validation('body discard_rest: needs action_ids (applying all leaves nothing to discard).', [
      { name: 'discard_rest', reason: 'needs action_ids' },
    ]);
  const workflows = ctx.services.invocationWorkflows;
  const waitMs = (body.wait_seconds ?? ctx.services.config.MCP_INVOKE_WAIT_SECONDS) * 1000;
  const started = Date.now();
  const decided = await workflows.decide(
    invocationId,
    {
      action: 'apply',
      input: {
        by: snapshotOf(principal),
        ...(body.action_ids ? { action_ids: body.action_ids } : {}),
        ...(body.discard_rest ? { discard_rest: true } : {}),
      },
    },
    waitMs,
  );
  // A run started before decisions in parts answers once decided, and applies after: its end is awaited.
  const state =
    decided && (decided.status === 'applying' || decided.status === 'running')
      ? await workflows.finished(invocationId, Math.max(0, waitMs - (Date.now() - started)))
      : decided;
  return answerWith(state, invocationId, presentAgentRun);
}

/** Discards the proposals (all still proposed, or the chosen ones: the rest stay proposed). */
export async function discardInvocation(ctx: OperationContext, invocationId: string, body: z.infer<typeof discardBody>): Promise<Answer> {
  await agentRunToDecide(ctx, invocationId);
  const input = { by: ctx.state.principal.subject, ...(body.action_ids ? { action_ids: body.action_ids } : {}) };
  const waitMs = ctx.services.config.MCP_INVOKE_WAIT_SECONDS * 1000;
  return answerWith(
    await ctx.services.invocationWorkflows.decide(invocationId, { action: 'discard', input }, waitMs),
    invocationId,
    presentAgentRun,
  );
}
