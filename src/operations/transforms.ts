import { z } from 'zod';
import { agentByName, agents } from '../invocations/agents/registry.js';
import { snapshotOf, isHuman } from '../identity/principal.js';
import type { TransformContent } from '../artifacts/content-types/transform.js';
import { problems } from '../kernel/errors/problem.js';
import { llmConfigured } from '../llm/client.js';
import type { ArtifactDoc } from '../store/artifacts.js';
import type { ContainerDoc } from '../store/containers.js';
import type { OperationContext } from './services.js';
import { invocationIdFor } from '../invocations/idempotency.js';
import { answerWith, invocationWorkspace, llmNotConfigured, readableInvocation, requireApplyPermissions } from './agent-runs.js';
import { invocableServer, waitSeconds, type Answer } from './mcp-servers.js';
import { presentTransformRun } from '../presenters/invocations.js';
import { uuid } from '../kernel/json/schemas.js';

/** `POST /artifacts/{transform_id}/invoke` (docs/decisions.md). */
export const transformInvokeBody = z.strictObject({
  workspace_id: uuid().optional().describe("Where the steps work; the transform's own workspace by default."),
  artifact_ids: z.array(uuid()).max(200).default([]).describe('The input artifacts (steps take them with artifact_ids: "input").'),
  input: z.string().trim().min(1).max(50_000).optional().describe('Free text, as {{input}} in the steps.'),
  wait_seconds: waitSeconds.describe('How long to wait for the run to reach an approval or its end before answering 202.'),
});

export const approvalBody = z.strictObject({ comment: z.string().trim().max(2000).optional() });

/**
 * Starts a transform: checked first as a whole, so that a run does not fail at step three for a
 * permission it never had. Every agent step applies, so the caller needs the scopes and grants for
 * every action its agents may propose; every tool step's server must be one the caller may call.
 */
export async function invokeTransform(
  ctx: OperationContext,
  found: { doc: ArtifactDoc; container: ContainerDoc },
  body: z.infer<typeof transformInvokeBody>,
  idempotencyKey?: string,
): Promise<Answer> {
  const { doc, container } = found;
  const principal = ctx.state.principal;
  const { config } = ctx.services;
  if (doc.archived_at) throw problems.conflict('archived-artifact', `Transform ${doc._id} is archived; unarchive it to run it.`);
  const definition = JSON.parse(doc.content) as TransformContent;
  const workspace = await invocationWorkspace(ctx, body, body.workspace_id ?? (container.kind === 'workspace' ? container._id : undefined));
  const serverRevisions: Record<string, number> = {};
  for (const step of definition.steps) {
    if (step.kind === 'agent' || step.kind === 'llm') {
      const agent = agentByName(step.kind === 'llm' ? 'llm' : step.agent)!;
      if (agent.usesLlm && !llmConfigured(config)) throw llmNotConfigured(`Step ${step.id} (${agent.name})`);
      requireApplyPermissions(ctx, agent, workspace);
    } else if (step.kind === 'tool') {
      const server = await invocableServer(ctx, step.server_id);
      if (server.container._id !== workspace._id)
        throw problems.validation(`Step ${step.id} calls server ${step.server_id}, which is registered in another workspace.`, [
          { name: `content.steps.${step.id}.server_id`, reason: 'must be a server of the workspace the transform runs in' },
        ]);
      serverRevisions[step.server_id] = server.doc.revision;
    }
  }
  const { wait_seconds, ...request } = body;
  const invocationId = invocationIdFor(principal.subject, doc._id, idempotencyKey, {
    ...request,
    workspace_id: workspace._id,
    revision: doc.revision,
  });
  await ctx.services.invocationWorkflows.startTransformRun({
    invocationId,
    transformId: doc._id,
    revision: doc.revision,
    definition,
    workspaceId: workspace._id,
    artifactIds: body.artifact_ids,
    input: body.input ?? null,
    principal: snapshotOf(principal),
    llmAgents: agents.filter((a) => a.usesLlm).map((a) => a.name),
    serverRevisions,
    maxCallSeconds: config.MCP_CALL_MAX_SECONDS,
  });
  return answerWith(
    await ctx.services.invocationWorkflows.transformSettled(invocationId, (wait_seconds ?? config.MCP_INVOKE_WAIT_SECONDS) * 1000),
    invocationId,
    presentTransformRun,
  );
}

/** A person approves or rejects the approval step a transform waits at (its starter, or an administrator of its workspace). */
export async function decideTransform(
  ctx: OperationContext,
  invocationId: string,
  action: 'approve' | 'reject',
  body: z.infer<typeof approvalBody>,
) {
  const principal = ctx.state.principal;
  const state = await readableInvocation(ctx, invocationId);
  if (!isHuman(principal))
    throw problems.forbidden('An approval step is decided by a person, with their own token: not a server credential or an API key.');
  if (!('kind' in state) || state.kind !== 'transform')
    throw problems.conflict('invocation-not-pending', `Invocation ${invocationId} is not a transform: it has no approval step.`);
  return presentTransformRun(
    await ctx.services.invocationWorkflows.approve(invocationId, action, { by: principal.subject, comment: body.comment ?? null }),
  );
}
