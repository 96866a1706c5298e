import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Db } from 'mongodb';
import type { Config } from '../kernel/config/env.js';
import { deliveryRefusal } from '../events/subscriptions/access.js';
import { matchesFilter } from '../events/subscriptions/filter.js';
import { createSubscriptionNotifier } from '../events/subscriptions/notify.js';
import { eventWire } from '../events/wire.js';
import { webhookHeaders } from '../events/subscriptions/signature.js';
import type { FetchLike } from '../net/outbound.js';
import { SubscriptionRunner } from '../runners/subscriptions.js';
import { ContainerStore } from '../store/containers.js';
import { EventStore } from '../store/events.js';
import { ServerCredentialStore } from '../store/server-credentials.js';
import type { SecretStore } from '../store/secrets.js';
import { subscriptionSecretOwner, SubscriptionStore, type SubscriptionState } from '../store/subscriptions.js';
import type { DeliveryOutcome, SubscriptionBatch } from '../workflows/contracts/subscription-delivery.js';

/** notifySubscriptions for the event dispatch activity: pokes each active subscription's workflow through the activity's client. */
export const subscriptionNotifier = (config: Config, db: Db) =>
  createSubscriptionNotifier(db, (sub, seq) => new SubscriptionRunner(() => Context.current().client, config).poke(sub, seq));

/** Longest error text kept on a delivery or a pause (a receiver's words are not ours to store at length). */
const maxErrorLength = 300;
const short = (message: string) => message.slice(0, maxErrorLength);

/** The activities of `subscriptionDelivery`: read past the cursor, deliver one signed webhook, record the state. */
export function createSubscriptionActivities(config: Config, db: Db, deps: { secrets: SecretStore; fetch: FetchLike }) {
  const subscriptions = new SubscriptionStore(db);
  const events = new EventStore(db);
  const access = { containers: new ContainerStore(db), serverCredentials: new ServerCredentialStore(db) };

  return {
    /** The matching events past `after`, in seq order; saves `after` as the stored cursor first. */
    async readSubscriptionEvents(input: {
      subscriptionId: string;
      after: number;
      limit: number;
      prune: boolean;
    }): Promise<SubscriptionBatch> {
      const sub = await subscriptions.get(input.subscriptionId);
      if (!sub) return { gone: true, refused: null, events: [], scannedTo: input.after, more: false };
      const refused = await deliveryRefusal(access, sub);
      if (refused) return { gone: false, refused, events: [], scannedTo: input.after, more: false };
      await subscriptions.saveCursor(sub._id, input.after);
      if (input.prune) await subscriptions.pruneDeliveries(sub._id);
      const page = await events.after(sub.workspace_id, input.after, input.limit);
      return {
        gone: false,
        refused: null,
        events: page.filter((e) => matchesFilter(sub, e)).map((e) => ({ id: e._id, seq: e.seq! })),
        scannedTo: page.at(-1)?.seq ?? input.after,
        more: page.length === input.limit,
      };
    },

    /** One attempt: 2xx is delivered; any other answer, a refusal or a timeout throws, and Temporal retries. */
    async deliverSubscriptionEvent(input: {
      subscriptionId: string;
      eventId: string;
      seq: number;
      attemptsBefore: number;
    }): Promise<DeliveryOutcome> {
      const sub = await subscriptions.get(input.subscriptionId);
      const secret = sub ? await deps.secrets.reveal(subscriptionSecretOwner(sub._id), sub.secret_id) : null;
      if (!sub || secret === null) return { gone: true, statusCode: null };
      const secrets = [secret];
      if (sub.previous_secret_id && sub.previous_secret_until && sub.previous_secret_until > new Date()) {
        const previous = await deps.secrets.reveal(subscriptionSecretOwner(sub._id), sub.previous_secret_id);
        if (previous !== null) secrets.push(previous);
      }
      const [event] = await events.after(sub.workspace_id, input.seq - 1, 1);
      if (!event || event._id !== input.eventId) throw ApplicationFailure.nonRetryable(`event ${input.eventId} is not at seq ${input.seq}`);
      // The event exactly as GET /workspaces/{id}/events presents it.
      const body = JSON.stringify(eventWire(event));
      const attempts = input.attemptsBefore + Context.current().info.attempt;
      const record = (outcome: 'delivered' | 'failed', statusCode: number | null, error: string | null) =>
        subscriptions.recordAttempt({
          _id: `${sub._id}:${event._id}`,
          subscription_id: sub._id,
          event_id: event._id,
          seq: input.seq,
          attempts,
          outcome,
          status_code: statusCode,
          error,
          at: new Date(),
        });
      let status: number;
      try {
        const response = await deps.fetch(sub.url, {
          method: 'POST',
          redirect: 'manual', // a redirect is no delivery: the receiver's own URL is the one registered
          headers: { 'content-type': 'application/json', 'user-agent': 'platform-webhooks/1', ...webhookHeaders(secrets, event._id, body) },
          body,
          signal: AbortSignal.timeout(config.SUBSCRIPTION_DELIVERY_TIMEOUT_MS),
        });
        status = response.status;
        await response.body?.cancel().catch(() => undefined);
      } catch (err) {
        const message = short(err instanceof Error ? `${err.name}: ${err.message}` : String(err));
        await record('failed', null, message);
        throw ApplicationFailure.retryable(`delivery failed: ${message}`, 'WebhookUnreachable');
      }
      if (status < 200 || status > 299) {
        await record('failed', status, `answered ${status}`);
        throw ApplicationFailure.retryable(`the webhook answered ${status}`, 'WebhookRefused');
      }
      await record('delivered', status, null);
      await subscriptions.delivered(sub._id, input.seq);
      return { gone: false, statusCode: status };
    },

    async saveSubscriptionCursor(input: { subscriptionId: string; cursor: number }): Promise<void> {
      await subscriptions.saveCursor(input.subscriptionId, input.cursor);
    },

    async recordSubscriptionState(input: {
      subscriptionId: string;
      state: SubscriptionState;
      cursor: number;
      failures: number;
      reason: string | null;
    }): Promise<void> {
      await subscriptions.setState(input.subscriptionId, {
        state: input.state,
        cursor: input.cursor,
        failures: input.failures,
        reason: input.reason === null ? null : short(input.reason),
      });
    },
  };
}
