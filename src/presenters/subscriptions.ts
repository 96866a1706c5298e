import { z } from 'zod';
import { eventKinds } from '../events/types.js';
import type { DeliveryDoc, SubscriptionDoc } from '../store/subscriptions.js';
import { actorSchema, count, timestamp } from './schemas.js';

export const subscriptionSchema = z
  .object({
    id: z.string(),
    workspace_id: z.string(),
    server_id: z.string(),
    owner_id: z.string(),
    created_by: actorSchema,
    url: z.string(),
    kinds: z.array(z.enum(eventKinds)).nullable().describe('Event kinds delivered; null: all.'),
    content_types: z.array(z.string()).nullable().describe('Content-type patterns delivered; null: all.'),
    state: z.enum(['active', 'paused']),
    cursor: count.describe('The seq of the last event delivered or skipped.'),
    failures: count,
    paused_at: timestamp.nullable(),
    pause_reason: z.string().nullable(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'Subscription' });
export type Subscription = z.output<typeof subscriptionSchema>;

/** On creation only: the signing secret, shown once. */
export const newSubscriptionSchema = subscriptionSchema.extend({ secret: z.string() }).meta({ id: 'NewSubscription' });

export const rotatedSubscriptionSecretSchema = z
  .object({
    id: z.string(),
    secret: z.string(),
    previous_secret_valid_until: timestamp.describe('Until then the previous secret signs deliveries too.'),
  })
  .meta({ id: 'RotatedSubscriptionSecret' });

export const deliverySchema = z
  .object({
    event_id: z.string(),
    seq: count,
    attempts: count,
    outcome: z.enum(['delivered', 'failed']),
    status_code: z.number().int().nullable(),
    error: z.string().nullable(),
    at: timestamp,
  })
  .meta({ id: 'Delivery' });
export type Delivery = z.output<typeof deliverySchema>;

/** A subscription as the API shows it: never its secret (shown once, on creation). */
export function presentSubscription(doc: SubscriptionDoc): Subscription {
  return {
    id: doc._id,
    workspace_id: doc.workspace_id,
    server_id: doc.server_id,
    owner_id: doc.owner_id,
    created_by: doc.created_by,
    url: doc.url,
    kinds: doc.kinds,
    content_types: doc.content_types,
    state: doc.state,
    cursor: doc.cursor,
    failures: doc.failures,
    paused_at: doc.paused_at?.toISOString() ?? null,
    pause_reason: doc.pause_reason,
    created_at: doc.created_at.toISOString(),
    updated_at: doc.updated_at.toISOString(),
  };
}

export function presentDelivery(doc: DeliveryDoc): Delivery {
  return {
    event_id: doc.event_id,
    seq: doc.seq,
    attempts: doc.attempts,
    outcome: doc.outcome,
    status_code: doc.status_code,
    error: doc.error,
    at: doc.at.toISOString(),
  };
}
