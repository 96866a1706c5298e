import { v7 as uuidv7 } from 'uuid';
import { z } from 'zod';
import { canSee, subscribingServer, visibleSubscriptions } from '../events/subscriptions/access.js';
import { newWebhookSecret } from '../events/subscriptions/signature.js';
import { checkWebhookUrl } from '../events/subscriptions/target.js';
import { eventKinds } from '../events/types.js';
import { requireGrant } from '../identity/grants.js';
import { problems } from '../kernel/errors/problem.js';
import { uuid } from '../kernel/json/schemas.js';
import type { ContainerDoc } from '../store/containers.js';
import type { Page } from '../store/pagination.js';
import { subscriptionSecretOwner, type DeliveryDoc, type SubscriptionDoc } from '../store/subscriptions.js';
import type { OperationContext } from './services.js';

/** How long the secret before a rotation still signs deliveries, beside the new one (Standard Webhooks). */
const rotationOverlapMs = 24 * 3600 * 1000;

/** Subscriptions one person may hold (their servers' included): each is a long-lived workflow. */
const maxPerOwner = 100;

const mimePattern = z
  .string()
  .max(200)
  .regex(/^(\*|\*\/\*|[a-z0-9!#$&^_.+-]+\/(\*|[a-z0-9!#$&^_.+-]+))$/i, 'must be a content type, type/*, or *');
export const subscriptionBody = z.strictObject({
  url: z.string().min(1).max(2048),
  server_id: uuid().optional(),
  kinds: z.array(z.enum(eventKinds)).min(1).max(eventKinds.length).optional(),
  content_types: z.array(mimePattern).min(1).max(20).optional(),
});

/** The subscription if the principal may see it; anyone else gets a 404. */
export async function visibleSubscription(ctx: OperationContext, id: string): Promise<SubscriptionDoc> {
  const doc = await ctx.services.subscriptions.get(id);
  if (!doc || !(await canSee(ctx.services, ctx.state.principal, doc))) throw problems.notFound('subscription', id);
  return doc;
}

/**
 * Tier 3 subscriptions (issue #21): signed webhooks of a workspace's events, for a registered MCP
 * server. Answers the subscription and its signing secret, shown this once.
 */
export async function createSubscription(
  ctx: OperationContext,
  workspace: ContainerDoc,
  input: z.infer<typeof subscriptionBody>,
): Promise<{ doc: SubscriptionDoc; secret: string }> {
  const { services } = ctx;
  const { principal } = ctx.state;
  requireGrant(workspace, principal, 'R');
  const server = await subscribingServer(services, principal, input.server_id);
  const url = await checkWebhookUrl(services.outbound, input.url);
  if ((await services.subscriptions.countOwned(principal.subject)) >= maxPerOwner) {
    throw problems.conflict('too-many-subscriptions', `A person holds at most ${maxPerOwner} subscriptions; delete one first.`);
  }
  const id = uuidv7();
  const secret = newWebhookSecret();
  const stored = await services.secrets.create(subscriptionSecretOwner(id), `webhook signing secret of subscription ${id}`, secret);
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
    cursor: await services.subscriptions.latestSeq(workspace._id),
    failures: 0,
    paused_at: null,
    pause_reason: null,
    created_at: now,
    updated_at: now,
  };
  try {
    await services.subscriptions.create(doc);
    await services.subscriptionWorkflows.poke(doc, doc.cursor);
  } catch (err) {
    // Nobody has seen the secret yet: undo, so a failed request leaves no subscription behind.
    await services.subscriptions.delete(id).catch(() => undefined);
    await services.secrets.delete(subscriptionSecretOwner(id), stored._id).catch(() => undefined);
    throw err;
  }
  return { doc, secret };
}

/** A workspace's subscriptions that the principal may see (none for who may see none). */
export async function listSubscriptions(
  ctx: OperationContext,
  workspace: ContainerDoc,
  limit: number,
  cursor?: string,
): Promise<Page<SubscriptionDoc>> {
  const scope = await visibleSubscriptions(ctx.services, ctx.state.principal);
  return scope ? ctx.services.subscriptions.list(workspace._id, scope, limit, cursor) : { items: [], next_cursor: null };
}

/** Stops the subscription's workflow, then forgets its secrets and itself. */
export async function deleteSubscription(ctx: OperationContext, id: string): Promise<void> {
  const doc = await visibleSubscription(ctx, id);
  const { services } = ctx;
  await services.subscriptionWorkflows.stop(doc._id);
  for (const secretId of [doc.secret_id, doc.previous_secret_id])
    if (secretId) await services.secrets.delete(subscriptionSecretOwner(doc._id), secretId);
  await services.subscriptions.delete(doc._id);
}

/** Resumes a paused subscription (its workflow checks access again before delivering); 409 unless paused. */
export async function resumeSubscription(ctx: OperationContext, id: string): Promise<SubscriptionDoc> {
  const doc = await visibleSubscription(ctx, id);
  if (doc.state !== 'paused') throw problems.conflict('subscription-not-paused', `Subscription ${doc._id} is ${doc.state}, not paused.`);
  await ctx.services.subscriptionWorkflows.resume(doc);
  return doc;
}

/** A new signing secret (shown this once); the one before it still signs for a day, beside it. */
export async function rotateSubscriptionSecret(ctx: OperationContext, id: string): Promise<{ id: string; secret: string; until: Date }> {
  const doc = await visibleSubscription(ctx, id);
  const { services } = ctx;
  const owner = subscriptionSecretOwner(doc._id);
  const secret = newWebhookSecret();
  const stored = await services.secrets.create(owner, `webhook signing secret of subscription ${doc._id}`, secret);
  const until = new Date(Date.now() + rotationOverlapMs);
  await services.subscriptions.rotateSecret(doc._id, stored._id, doc.secret_id, until);
  // The secret before the previous one signs nothing any more.
  if (doc.previous_secret_id) await services.secrets.delete(owner, doc.previous_secret_id);
  return { id: doc._id, secret, until };
}

/** A subscription's recent deliveries, newest first. */
export async function listDeliveries(ctx: OperationContext, id: string, limit: number, cursor?: string): Promise<Page<DeliveryDoc>> {
  const doc = await visibleSubscription(ctx, id);
  return ctx.services.subscriptions.deliveriesOf(doc._id, limit, cursor);
}
