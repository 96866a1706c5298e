import { v7 as uuidv7 } from 'uuid';
import { z } from 'zod';
import { canSee, subscribingServer, visibleSubscriptions } from '../../events/subscriptions/access.js';
import { newWebhookSecret } from '../../events/subscriptions/signature.js';
import { checkWebhookUrl } from '../../events/subscriptions/target.js';
import { eventKinds } from '../../events/types.js';
import { requireGrant } from '../../identity/grants.js';
import { problems } from '../../kernel/errors/problem.js';
import { uuid } from '../../kernel/json/schemas.js';
import { presentPage } from '../../presenters/index.js';
import { presentDelivery, presentSubscription } from '../../presenters/subscriptions.js';
import { SubscriptionWorkflows } from '../../workflow-clients/subscriptions.js';
import { subscriptionSecretOwner, SubscriptionStore, type SubscriptionDoc } from '../../store/subscriptions.js';
import type { AppContext } from '../context.js';
import { idParam, pageQuery, parse } from '../validate.js';
import { route, type RouteDef } from '../route.js';

/** How long the secret before a rotation still signs deliveries, beside the new one (Standard Webhooks). */
const rotationOverlapMs = 24 * 3600 * 1000;

/** Subscriptions one person may hold (their servers' included): each is a long-lived workflow. */
const maxPerOwner = 100;

const mimePattern = z
  .string()
  .max(200)
  .regex(/^(\*|\*\/\*|[a-z0-9!#$&^_.+-]+\/(\*|[a-z0-9!#$&^_.+-]+))$/i, 'must be a content type, type/*, or *');
const createBody = z.strictObject({
  url: z.string().min(1).max(2048),
  server_id: uuid().optional(),
  kinds: z.array(z.enum(eventKinds)).min(1).max(eventKinds.length).optional(),
  content_types: z.array(mimePattern).min(1).max(20).optional(),
});

const stores = (ctx: AppContext) => ({
  subscriptions: new SubscriptionStore(ctx.services.db),
  runner: new SubscriptionWorkflows(() => ctx.services.temporal, ctx.services.config),
});

/** The subscription at `:id` if the principal may see it; anyone else gets a 404. */
async function visible(ctx: AppContext): Promise<SubscriptionDoc> {
  const { id } = parse(idParam, ctx.params, 'path');
  const doc = await stores(ctx).subscriptions.get(id);
  if (!doc || !(await canSee(ctx.services, ctx.state.principal!, doc))) throw problems.notFound('subscription', id);
  return doc;
}

async function workspaceOf(ctx: AppContext) {
  const { id } = parse(idParam, ctx.params, 'path');
  const workspace = await ctx.services.containers.get('workspace', ctx.state.principal!, id);
  if (!workspace) throw problems.notFound('workspace', id);
  return workspace;
}

/** Tier 3 subscriptions (issue #21): signed webhooks of a workspace's events, for a registered MCP server. */
export const subscriptionRoutes: RouteDef[] = [
  route({
    method: 'post',
    path: '/workspaces/:id/subscriptions',
    access: 'events:subscribe',
    doc: { summary: "Subscribe a registered server to a workspace's events (signed webhooks)", status: 201, errors: [409] },
    body: 'json',
    request: createBody,
    handler: async (ctx, _query, body) => {
      const principal = ctx.state.principal!;
      const workspace = await workspaceOf(ctx);
      const input = body();
      requireGrant(workspace, principal, 'R');
      const server = await subscribingServer(ctx.services, principal, input.server_id);
      const url = await checkWebhookUrl(ctx.services.outbound, input.url);
      const { subscriptions, runner } = stores(ctx);
      if ((await subscriptions.countOwned(principal.subject)) >= maxPerOwner) {
        throw problems.conflict('too-many-subscriptions', `A person holds at most ${maxPerOwner} subscriptions; delete one first.`);
      }
      const id = uuidv7();
      const secret = newWebhookSecret();
      const stored = await ctx.services.secrets.create(subscriptionSecretOwner(id), `webhook signing secret of subscription ${id}`, secret);
      const now = new Date();
      const doc: SubscriptionDoc = {
        _id: id,
        workspace_id: workspace._id,
        server_id: server._id,
        owner_id: principal.subject,
        created_by: principal.actor,
        url,
        kinds: input.kinds ? [...new Set(input.kinds)] : null,
        content_types: input.content_types ? [...new Set(input.content_types.map((t) => t.toLowerCase()))] : null,
        secret_id: stored._id,
        state: 'active',
        cursor: await subscriptions.latestSeq(workspace._id),
        failures: 0,
        paused_at: null,
        pause_reason: null,
        created_at: now,
        updated_at: now,
      };
      try {
        await subscriptions.create(doc);
        await runner.poke(doc, doc.cursor);
      } catch (err) {
        // Nobody has seen the secret yet: undo, so a failed request leaves no subscription behind.
        await subscriptions.delete(id).catch(() => undefined);
        await ctx.services.secrets.delete(subscriptionSecretOwner(id), stored._id).catch(() => undefined);
        throw err;
      }
      ctx.status = 201;
      ctx.set('Cache-Control', 'no-store');
      ctx.body = { ...presentSubscription(doc), secret };
    },
  }),
  route({
    method: 'get',
    path: '/workspaces/:id/subscriptions',
    access: 'events:subscribe',
    doc: { summary: "List a workspace's subscriptions" },
    query: pageQuery,
    handler: async (ctx, { limit, cursor }) => {
      const workspace = await workspaceOf(ctx);
      const scope = await visibleSubscriptions(ctx.services, ctx.state.principal!);
      const page = scope ? await stores(ctx).subscriptions.list(workspace._id, scope, limit, cursor) : { items: [], next_cursor: null };
      ctx.body = presentPage(page, presentSubscription);
    },
  }),
  {
    method: 'get',
    path: '/subscriptions/:id',
    access: 'events:subscribe',
    doc: { summary: 'Read a subscription' },
    handler: async (ctx) => {
      ctx.body = presentSubscription(await visible(ctx));
    },
  },
  {
    method: 'delete',
    path: '/subscriptions/:id',
    access: 'events:subscribe',
    doc: { summary: 'Delete a subscription' },
    handler: async (ctx) => {
      const doc = await visible(ctx);
      const { subscriptions, runner } = stores(ctx);
      await runner.stop(doc._id);
      for (const id of [doc.secret_id, doc.previous_secret_id])
        if (id) await ctx.services.secrets.delete(subscriptionSecretOwner(doc._id), id);
      await subscriptions.delete(doc._id);
      ctx.status = 204;
    },
  },
  {
    method: 'post',
    path: '/subscriptions/:id/resume',
    access: 'events:subscribe',
    doc: { summary: 'Resume a paused subscription', status: 202, errors: [409] },
    handler: async (ctx) => {
      const doc = await visible(ctx);
      if (doc.state !== 'paused')
        throw problems.conflict('subscription-not-paused', `Subscription ${doc._id} is ${doc.state}, not paused.`);
      await stores(ctx).runner.resume(doc);
      ctx.status = 202;
      ctx.body = presentSubscription(doc);
    },
  },
  {
    method: 'post',
    path: '/subscriptions/:id/rotate-secret',
    access: 'events:subscribe',
    doc: { summary: "Rotate a subscription's signing secret" },
    handler: async (ctx) => {
      const doc = await visible(ctx);
      const owner = subscriptionSecretOwner(doc._id);
      const secret = newWebhookSecret();
      const stored = await ctx.services.secrets.create(owner, `webhook signing secret of subscription ${doc._id}`, secret);
      const until = new Date(Date.now() + rotationOverlapMs);
      await stores(ctx).subscriptions.rotateSecret(doc._id, stored._id, doc.secret_id, until);
      // The secret before the previous one signs nothing any more.
      if (doc.previous_secret_id) await ctx.services.secrets.delete(owner, doc.previous_secret_id);
      ctx.set('Cache-Control', 'no-store');
      ctx.body = { id: doc._id, secret, previous_secret_valid_until: until.toISOString() };
    },
  },
  route({
    method: 'get',
    path: '/subscriptions/:id/deliveries',
    access: 'events:subscribe',
    doc: { summary: "List a subscription's deliveries" },
    query: pageQuery.extend({ limit: z.coerce.number().int().min(1).max(100).default(50) }),
    handler: async (ctx, { limit, cursor }) => {
      const doc = await visible(ctx);
      ctx.body = presentPage(await stores(ctx).subscriptions.deliveriesOf(doc._id, limit, cursor), presentDelivery);
    },
  }),
];
