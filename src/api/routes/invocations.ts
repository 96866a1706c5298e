import { agents, presentAgent } from '../../invocations/agents/registry.js';
import { applyBody, applyInvocation, discardInvocation } from '../../operations/agent-runs.js';
import { getInvocation, invoke } from '../../operations/invoke.js';
import { approvalBody, decideTransform } from '../../operations/transforms.js';
import { withContentDiffs } from '../../presenters/invocations.js';
import { idempotencyKeyOf, idParam, parse } from '../validate.js';
import { answer } from '../answer.js';
import { artifactId } from '../artifact-access.js';
import type { RecordedAction } from '../../invocations/proposed-actions/schema.js';
import type { AppContext } from '../context.js';
import { route, type RouteDef } from '../route.js';

const invocationId = (ctx: AppContext) => parse(idParam, ctx.params, 'path').id;

type AgentRunBody = { workspace_id: string; actions: RecordedAction[] };
const isAgentRunBody = (body: unknown): body is AgentRunBody =>
  typeof body === 'object' && body !== null && 'actions' in body && Array.isArray(body.actions) && 'workspace_id' in body;

/** An agent run's answer (read, applied, discarded) with its updates' content diffs, as far as the caller may read the drafts. */
async function diffed(ctx: AppContext, body: unknown): Promise<unknown> {
  if (!isAgentRunBody(body)) return body;
  const { artifacts } = ctx.services;
  const principal = ctx.state.principal!;
  return withContentDiffs(body, {
    mayRead: (type) => principal.scopes.allowsType('artifact:read', type),
    getMany: (ids) => artifacts.currentMany(ids),
    revisionAt: (id, n) => artifacts.revisionAt(id, n),
  });
}

/** Invocation (SPEC §4.3): MCP tool calls, task agents and LLM runs, their proposals and the decision on them. */
export const invocationRoutes: RouteDef[] = [
  {
    method: 'post',
    path: '/artifacts/:id/invoke',
    access: 'artifact:invoke',
    doc: {
      summary: 'Invoke an MCP tool, a task agent, an LLM or a transform',
      description: 'Answers 200 with the result, or 202 with the invocation to poll while it runs.',
      errors: [409],
    },
    body: 'json',
    handler: async (ctx) => answer(ctx, await invoke(ctx, artifactId(ctx), ctx.state.body, idempotencyKeyOf(ctx))),
  },
  {
    method: 'get',
    path: '/agents',
    access: 'artifact:invoke',
    doc: { summary: 'List the task agents' },
    handler: (ctx) => {
      ctx.body = { items: agents.map(presentAgent) };
    },
  },
  {
    method: 'get',
    path: '/invocations/:id',
    access: 'artifact:invoke',
    doc: { summary: 'Read an invocation and its proposed actions' },
    handler: async (ctx) => {
      ctx.body = await diffed(ctx, await getInvocation(ctx, invocationId(ctx)));
    },
  },
  route({
    method: 'post',
    path: '/invocations/:id/apply',
    access: 'artifact:invoke',
    doc: { summary: "Apply an agent run's proposed actions", errors: [409] },
    body: 'json',
    request: applyBody,
    handler: async (ctx, _query, body) => {
      const applied = await applyInvocation(ctx, invocationId(ctx), body());
      answer(ctx, { ...applied, body: await diffed(ctx, applied.body) });
    },
  }),
  {
    method: 'post',
    path: '/invocations/:id/discard',
    access: 'artifact:invoke',
    doc: { summary: "Discard an agent run's proposed actions", errors: [409] },
    handler: async (ctx) => {
      ctx.body = await diffed(ctx, await discardInvocation(ctx, invocationId(ctx)));
    },
  },
  ...(['approve', 'reject'] as const).map((action) =>
    route({
      method: 'post',
      path: `/invocations/:id/${action}`,
      access: 'artifact:invoke',
      doc: { summary: `${action === 'approve' ? 'Approve' : 'Reject'} a transform's proposal`, errors: [409] },
      body: 'json',
      request: approvalBody,
      handler: async (ctx, _query, body) => {
        ctx.body = await decideTransform(ctx, invocationId(ctx), action, body());
      },
    }),
  ),
];
