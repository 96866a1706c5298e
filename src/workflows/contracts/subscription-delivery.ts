import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { SubscriptionState } from '../../store/subscriptions.js';

/** The contract of `subscriptionDelivery` (workflows/subscription-delivery.ts): one run per Tier 3 subscription. */
export const subscriptionDeliveryType = 'subscriptionDelivery';
export type SubscriptionDelivery = (input: SubscriptionDeliveryInput) => Promise<void>;

/** Events up to this seq are recorded in the workspace (sent by notifySubscriptions after each batch). */
export const eventsRecordedSignal = defineSignal<[number]>('eventsRecorded');
/** Resume a paused subscription: it delivers its backlog, in order. */
export const resumeSignal = defineSignal('resume');
export const subscriptionStatusQuery = defineQuery<SubscriptionStatus>('status');

export interface SubscriptionStatus {
  state: SubscriptionState;
  cursor: number;
  /** Failed attempts on the head event since it was last delivered (all rounds). */
  failures: number;
}

/** How deliveries are retried and paused (from the configuration when the run was started). */
export interface DeliveryPolicy {
  deliveryTimeoutMs: number;
  retryInitialMs: number;
  retryMaxMs: number;
  /** Consecutive failed attempts on one event before the subscription pauses. */
  pauseAfterAttempts: number;
  pollSeconds: number;
  /** Continue-as-new after this many activities, to keep history bounded. */
  continueAsNewAfter: number;
}

export interface SubscriptionDeliveryInput {
  subscriptionId: string;
  workspaceId: string;
  /** The seq of the last event delivered or skipped. */
  cursor: number;
  policy: DeliveryPolicy;
  /** Carried over a continue-as-new. */
  state?: SubscriptionState;
  failures?: number;
}

/** What the read activity answers: the matching events past the cursor, and how far it read. */
export interface SubscriptionBatch {
  /** The subscription was deleted: the run ends. */
  gone: boolean;
  /** Why it may no longer deliver (access withdrawn): it pauses. */
  refused: string | null;
  events: { id: string; seq: number }[];
  /** The seq of the last event read, matching or not. */
  scannedTo: number;
  /** A full page was read: there may be more. */
  more: boolean;
}

/** A delivery activity's answer (a failure throws, so Temporal retries it with backoff). */
export interface DeliveryOutcome {
  gone: boolean;
  statusCode: number | null;
}

/** A page of deliveries, each tried once: how many went through, in order, before the first that did not. */
export interface PageOutcome {
  gone: boolean;
  delivered: number;
}
