import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Db } from 'mongodb';
import type { Config } from '../kernel/config/env.js';
import { deliveryRefusal } from '../events/subscriptions/access.js';
import { matchesFilter } from '../events/subscriptions/filter.js';
import { createSubscriptionNotifier } from '../events/subscriptions/notify.js';
import { eventWire } from '../events/wire.js';
import { webhookHeaders } from '../events/subscriptions/signature.js';
import type { FetchLike } from '../net/outbound.js';
import { SubscriptionWorkflows } from '../workflow-clients/subscriptions.js';
import { ContainerStore } from '../store/containers.js';
import { EventStore, type EventDoc } from '../store/events.js';
import { ServerCredentialStore } from '../store/server-credentials.js';
import type { SecretStore } from '../store/secrets.js';
import { subscriptionSecretOwner, SubscriptionStore, type SubscriptionDoc, type SubscriptionState } from '../store/subscriptions.js';
import type { DeliveryOutcome, PageOutcome, SubscriptionBatch } from '../workflows/contracts/subscription-delivery.js';

/** notifySubscriptions for the event dispatch activity: pokes each active subscription's workflow through the activity's client. */
export const subscriptionNotifier = (config: Config, db: Db) =>
  createSubscriptionNotifier(db, (sub, seq) => new SubscriptionWorkflows(() => Context.current().client, config).poke(sub, seq));

/** Longest error text kept on a delivery or a pause (a receiver's words are not ours to store at length). */
const maxErrorLength = 300;
const short = (message: string) => message.slice(0, maxErrorLength);

/** The activities of `subscriptionDelivery`: read past the cursor, deliver one signed webhook, record the state. */
export function createSubscriptionActivities(config: Config, db: Db, deps: { secrets: SecretStore; fetch: FetchLike }) {
  const subscriptions = new SubscriptionStore(db);
  const events = new EventStore(db);
  const access = { containers: new ContainerStore(db), serverCredentials: new ServerCredentialStore(db) };

  /** The subscription and the secrets that sign for it now (the previous one too, for a day after a rotation); null once it is gone. */
  async function targetOf(subscriptionId: string) {
    const sub = await subscriptions.get(subscriptionId);
    const secret = sub ? await deps.secrets.reveal(subscriptionSecretOwner(sub._id), sub.secret_id) : null;
    if (!sub || secret === null) return null;
    const secrets = [secret];
    if (sub.previous_secret_id && sub.previous_secret_until && sub.previous_secret_until > new Date()) {
      const previous = await deps.secrets.reveal(subscriptionSecretOwner(sub._id), sub.previous_secret_id);
      if (previous !== null) secrets.push(previous);
    }
    return { sub, secrets };
  }

  /** One signed POST of one event, recorded as a delivery attempt: its status, or why it failed. */
  async function attempt(
    { sub, secrets }: { sub: SubscriptionDoc; secrets: string[] },
    event: EventDoc,
    attempts: number,
  ): Promise<{ status: number } | { status: number | null; failure: string }> {
    // The event exactly as GET /workspaces/{id}/events presents it.
    const body = JSON.stringify(eventWire(event));
    const record = (outcome: 'delivered' | 'failed', statusCode: number | null, error: string | null) =>
      subscriptions.recordAttempt({
        _id: `${sub._id}:${event._id}`,
        subscription_id: sub._id,
        event_id: event._id,
        seq: event.seq!,
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
      return { status: null, failure: `delivery failed: ${message}` };
    }
    if (status < 200 || status > 299) {
      await record('failed', status, `answered ${status}`);
      return { status, failure: `the webhook answered ${status}` };
    }
    await record('delivered', status, null);
    return { status };
  }

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
      const target = await targetOf(input.subscriptionId);
      if (!target) return { gone: true, statusCode: null };
      const [event] = await events.after(target.sub.workspace_id, input.seq - 1, 1);
      if (!event || event._id !== input.eventId) throw ApplicationFailure.nonRetryable(`event ${input.eventId} is not at seq ${input.seq}`);
      const sent = await attempt(target, event, input.attemptsBefore + Context.current().info.attempt);
      if ('failure' in sent)
        throw ApplicationFailure.retryable(sent.failure, sent.status === null ? 'WebhookUnreachable' : 'WebhookRefused');
      await subscriptions.delivered(target.sub._id, event.seq!);
      return { gone: false, statusCode: sent.status };
    },

    /**
     * The fast path: a page of events (in seq order) delivered in one activity, each tried once,
     * stopping at the first that fails (the workflow then retries that one alone, with backoff) or
     * when the page has taken `budgetMs`.
     */
    async deliverSubscriptionEvents(input: {
      subscriptionId: string;
      events: { id: string; seq: number }[];
      budgetMs: number;
    }): Promise<PageOutcome> {
      const target = await targetOf(input.subscriptionId);
      if (!target) return { gone: true, delivered: 0 };
      const first = input.events[0]?.seq ?? 0;
      const last = input.events.at(-1)?.seq ?? 0;
      const docs = new Map((await events.after(target.sub.workspace_id, first - 1, last - first + 1)).map((e) => [e._id, e]));
      const until = Date.now() + input.budgetMs;
      let delivered = 0;
      for (const { id, seq } of input.events) {
        const event = docs.get(id);
        if (!event || event.seq !== seq || Date.now() > until) break;
        if ('failure' in (await attempt(target, event, 1))) break;
        delivered++;
      }
      if (delivered > 0) await subscriptions.delivered(target.sub._id, input.events[delivered - 1]!.seq);
      return { gone: false, delivered };
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
