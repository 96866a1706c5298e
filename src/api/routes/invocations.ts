import { agents, presentAgent } from '../../invocations/agents/registry.js';
import { applyBody, applyInvocation, discardBody, discardInvocation } from '../../operations/agent-runs.js';
import { getInvocation, invoke, withDiffs } from '../../operations/invoke.js';
import { approvalBody, decideTransform } from '../../operations/transforms.js';
import { idempotencyKeyOf, idParam, parse } from '../validate.js';
import { answer } from '../answer.js';
import { artifactId } from '../artifact-access.js';
import type { AppContext } from '../context.js';
import { route, type RouteDef } from '../route.js';
import { byStatus } from '../openapi/responses.js';
import {
  agentRunSchema,
  agentSchema,
  invocationSchema,
  pendingRunSchema,
  runningInvocationSchema,
  transformRunSchema,
} from '../../presenters/invocations.js';
import { list } from '../../presenters/schemas.js';

const invocationId = (ctx: AppContext) => parse(idParam, ctx.params, 'path').id;

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
      response: byStatus({ 200: invocationSchema, 202: runningInvocationSchema }),
    },
    body: 'json',
    handler: async (ctx) => answer(ctx, await invoke(ctx, artifactId(ctx), ctx.state.body, idempotencyKeyOf(ctx))),
  },
  {
    method: 'get',
    path: '/agents',
    access: 'artifact:invoke',
    doc: { summary: 'List the task agents', response: list(agentSchema) },
    handler: (ctx) => {
      ctx.body = { items: agents.map(presentAgent) };
    },
  },
  {
    method: 'get',
    path: '/invocations/:id',
    access: 'artifact:invoke',
    doc: { summary: 'Read an invocation and its proposed actions', response: invocationSchema },
    handler: async (ctx) => {
      ctx.body = await withDiffs(ctx, await getInvocation(ctx, invocationId(ctx)));
    },
  },
  route({
    method: 'post',
    path: '/invocations/:id/apply',
    access: 'artifact:invoke',
    doc: {
      summary: "Apply an agent run's proposed actions (all, or the chosen ones: the rest stay proposed)",
      errors: [409],
      response: byStatus({ 200: agentRunSchema, 202: pendingRunSchema }),
    },
    body: 'json',
    request: applyBody,
    handler: async (ctx, _query, body) => {
      const applied = await applyInvocation(ctx, invocationId(ctx), body());
      answer(ctx, { ...applied, body: await withDiffs(ctx, applied.body) });
    },
  }),
  route({
    method: 'post',
    path: '/invocations/:id/discard',
    access: 'artifact:invoke',
    doc: {
      summary: "Discard an agent run's proposed actions (all still proposed, or the chosen ones)",
      errors: [409],
      response: byStatus({ 200: agentRunSchema, 202: pendingRunSchema }),
    },
    body: 'json',
    request: discardBody,
    handler: async (ctx, _query, body) => {
      const discarded = await discardInvocation(ctx, invocationId(ctx), body());
      answer(ctx, { ...discarded, body: await withDiffs(ctx, discarded.body) });
    },
  }),
  ...(['approve', 'reject'] as const).map((action) =>
    route({
      method: 'post',
      path: `/invocations/:id/${action}`,
      access: 'artifact:invoke',
      doc: {
        summary: `${action === 'approve' ? 'Approve' : 'Reject'} a transform's proposal`,
        errors: [409],
        response: transformRunSchema,
      },
      body: 'json',
      request: approvalBody,
      handler: async (ctx, _query, body) => {
        ctx.body = await decideTransform(ctx, invocationId(ctx), action, body());
      },
    }),
  ),
];
