import { agents, presentAgent } from '../../invocations/agents/registry.js';
import { applyBody, applyInvocation, discardInvocation } from '../../operations/agent-runs.js';
import { getInvocation, invoke } from '../../operations/invoke.js';
import { approvalBody, decideTransform } from '../../operations/transforms.js';
import { withContentDiffs } from '../../presenters/invocations.js';
import { idempotencyKeyOf, idParam, parse } from '../validate.js';
import { answer } from '../answer.js';
import { artifactId } from '../artifact-access.js';
import type { RouteDef } from '../route.js';

const invocationId = (ctx: Parameters<RouteDef['handler']>[0]) => parse(idParam, ctx.params, 'path').id;

/** Invocation (SPEC §4.3): MCP tool calls, task agents and LLM runs, their proposals and the decision on them. */
export const invocationRoutes: RouteDef[] = [
  {
    method: 'post',
    path: '/artifacts/:id/invoke',
    access: 'artifact:invoke',
    body: 'json',
    handler: async (ctx) => answer(ctx, await invoke(ctx, artifactId(ctx), ctx.state.body, idempotencyKeyOf(ctx))),
  },
  {
    method: 'get',
    path: '/agents',
    access: 'artifact:invoke',
    handler: (ctx) => {
      ctx.body = { items: agents.map(presentAgent) };
    },
  },
  {
    method: 'get',
    path: '/invocations/:id',
    access: 'artifact:invoke',
    handler: async (ctx) => {
      const invocation = await getInvocation(ctx, invocationId(ctx));
      if (!('actions' in invocation)) return void (ctx.body = invocation);
      const { artifacts } = ctx.services;
      const principal = ctx.state.principal!;
      ctx.body = await withContentDiffs(invocation, {
        mayRead: (type) => principal.scopes.allowsType('artifact:read', type),
        getMany: (ids) => artifacts.getMany(ids),
        revisionAt: (id, n) => artifacts.revisionAt(id, n),
      });
    },
  },
  {
    method: 'post',
    path: '/invocations/:id/apply',
    access: 'artifact:invoke',
    body: 'json',
    handler: async (ctx) => answer(ctx, await applyInvocation(ctx, invocationId(ctx), parse(applyBody, ctx.state.body ?? {}, 'body'))),
  },
  {
    method: 'post',
    path: '/invocations/:id/discard',
    access: 'artifact:invoke',
    handler: async (ctx) => {
      ctx.body = await discardInvocation(ctx, invocationId(ctx));
    },
  },
  ...(['approve', 'reject'] as const).map((action): RouteDef => ({
    method: 'post',
    path: `/invocations/:id/${action}`,
    access: 'artifact:invoke',
    body: 'json',
    handler: async (ctx) => {
      ctx.body = await decideTransform(ctx, invocationId(ctx), action, parse(approvalBody, ctx.state.body ?? {}, 'body'));
    },
  })),
];
