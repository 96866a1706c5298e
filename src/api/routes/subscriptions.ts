import { z } from 'zod';
import { presentPage } from '../../presenters/index.js';
import {
  deliverySchema,
  newSubscriptionSchema,
  presentDelivery,
  presentSubscription,
  rotatedSubscriptionSecretSchema,
  subscriptionSchema,
} from '../../presenters/subscriptions.js';
import {
  createSubscription,
  deleteSubscription,
  listDeliveries,
  listSubscriptions,
  resumeSubscription,
  rotateSubscriptionSecret,
  subscriptionBody,
  visibleSubscription,
} from '../../operations/subscriptions.js';
import { visibleContainer } from '../../operations/containers.js';
import type { AppContext } from '../context.js';
import { idParam, pageQuery, parse } from '../validate.js';
import { route, type RouteDef } from '../route.js';
import { page } from '../../presenters/schemas.js';

const pathId = (ctx: AppContext) => parse(idParam, ctx.params, 'path').id;

/** Tier 3 subscriptions (issue #21): signed webhooks of a workspace's events, for a registered MCP server. */
export const subscriptionRoutes: RouteDef[] = [
  route({
    method: 'post',
    path: '/workspaces/:id/subscriptions',
    access: 'events:subscribe',
    doc: {
      summary: "Subscribe a registered server to a workspace's events (signed webhooks)",
      status: 201,
      errors: [409],
      response: newSubscriptionSchema,
    },
    body: 'json',
    request: subscriptionBody,
    handler: async (ctx, _query, body) => {
      const workspace = await visibleContainer(ctx, 'workspace', pathId(ctx));
      const { doc, secret } = await createSubscription(ctx, workspace, body());
      ctx.status = 201;
      ctx.set('Cache-Control', 'no-store');
      ctx.body = { ...presentSubscription(doc), secret };
    },
  }),
  route({
    method: 'get',
    path: '/workspaces/:id/subscriptions',
    access: 'events:subscribe',
    doc: { summary: "List a workspace's subscriptions", response: page(subscriptionSchema) },
    query: pageQuery,
    handler: async (ctx, { limit, cursor }) => {
      const workspace = await visibleContainer(ctx, 'workspace', pathId(ctx));
      ctx.body = presentPage(await listSubscriptions(ctx, workspace, limit, cursor), presentSubscription);
    },
  }),
  route({
    method: 'get',
    path: '/subscriptions/:id',
    access: 'events:subscribe',
    doc: { summary: 'Read a subscription', response: subscriptionSchema },
    handler: async (ctx) => {
      ctx.body = presentSubscription(await visibleSubscription(ctx, pathId(ctx)));
    },
  }),
  route({
    method: 'delete',
    path: '/subscriptions/:id',
    access: 'events:subscribe',
    doc: { summary: 'Delete a subscription' },
    handler: async (ctx) => {
      await deleteSubscription(ctx, pathId(ctx));
      ctx.status = 204;
    },
  }),
  route({
    method: 'post',
    path: '/subscriptions/:id/resume',
    access: 'events:subscribe',
    doc: { summary: 'Resume a paused subscription', status: 202, errors: [409], response: subscriptionSchema },
    handler: async (ctx) => {
      const doc = await resumeSubscription(ctx, pathId(ctx));
      ctx.status = 202;
      ctx.body = presentSubscription(doc);
    },
  }),
  route({
    method: 'post',
    path: '/subscriptions/:id/rotate-secret',
    access: 'events:subscribe',
    doc: { summary: "Rotate a subscription's signing secret", response: rotatedSubscriptionSecretSchema },
    handler: async (ctx) => {
      const { id, secret, until } = await rotateSubscriptionSecret(ctx, pathId(ctx));
      ctx.set('Cache-Control', 'no-store');
      ctx.body = { id, secret, previous_secret_valid_until: until.toISOString() };
    },
  }),
  route({
    method: 'get',
    path: '/subscriptions/:id/deliveries',
    access: 'events:subscribe',
    doc: { summary: "List a subscription's deliveries", response: page(deliverySchema) },
    query: pageQuery.extend({ limit: z.coerce.number().int().min(1).max(100).default(50) }),
    handler: async (ctx, { limit, cursor }) => {
      ctx.body = presentPage(await listDeliveries(ctx, pathId(ctx), limit, cursor), presentDelivery);
    },
  }),
];
