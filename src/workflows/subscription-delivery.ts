import {
  ActivityFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { SubscriptionState } from '../store/subscriptions.js';
import { SubscriptionState as SubscriptionStateAttribute } from '../temporal/search-attributes.js';
import {
  eventsRecordedSignal,
  resumeSignal,
  subscriptionStatusQuery,
  type SubscriptionDeliveryInput,
} from './contracts/subscription-delivery.js';

const pageSize = 100;
/** Deliveries per activity on the fast path. */
const deliveryPage = 25;

const { readSubscriptionEvents, recordSubscriptionState, saveSubscriptionCursor } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds', // store reads and one write
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

/**
 * One run per subscription (id `subscription-<id>`): reads the workspace's events past its cursor in
 * seq order, delivers the matching ones one at a time (at least once: the cursor moves only after a
 * 2xx), retried with exponential backoff by Temporal. After `pauseAfterAttempts` failed attempts on
 * one event it pauses (store, query, search attribute) until the resume signal. Woken by
 * eventsRecorded signals, and by a slow poll as a safety net.
 */
export async function subscriptionDelivery(input: SubscriptionDeliveryInput): Promise<void> {
  const { subscriptionId, policy } = input;
  // Each event of a page is tried once (a failure is retried alone, below); its deadline covers the page's budget.
  const { deliverSubscriptionEvents } = proxyActivities<Activities>({
    startToCloseTimeout: policy.deliveryTimeoutMs * 3 + 5_000,
    retry: { maximumAttempts: 1 },
  });
  const { deliverSubscriptionEvent } = proxyActivities<Activities>({
    startToCloseTimeout: policy.deliveryTimeoutMs + 5_000,
    retry: {
      initialInterval: policy.retryInitialMs,
      backoffCoefficient: 2,
      maximumInterval: policy.retryMaxMs,
      // The page's own try was the first attempt: together they make pauseAfterAttempts.
      maximumAttempts: Math.max(1, policy.pauseAfterAttempts - 1),
    },
  });
  let cursor = input.cursor;
  let known = cursor;
  let state: SubscriptionState = input.state ?? 'active';
  let failures = input.failures ?? 0;
  let resumed = false;
  setHandler(eventsRecordedSignal, (seq) => void (known = Math.max(known, seq)));
  // A resume counts only while paused: a second one sent meanwhile must not undo a later pause.
  setHandler(resumeSignal, () => void (resumed = state === 'paused'));
  setHandler(subscriptionStatusQuery, () => ({ state, cursor, failures }));

  const moveTo = async (next: SubscriptionState, reason: string | null) => {
    state = next;
    upsertSearchAttributes([{ key: SubscriptionStateAttribute, value: next }]);
    await recordSubscriptionState({ subscriptionId, state: next, cursor, failures, reason });
  };

  let steps = 0;
  let prune = true;
  for (;;) {
    if (state === 'paused') {
      await condition(() => resumed);
      resumed = false;
      await moveTo('active', null);
    }
    const batch = await readSubscriptionEvents({ subscriptionId, after: cursor, limit: pageSize, prune });
    prune = false;
    steps++;
    if (batch.gone) return;
    if (batch.refused) {
      await moveTo('paused', batch.refused);
      continue;
    }
    for (let i = 0; i < batch.events.length;) {
      // The fast path: a page in one activity, each event tried once, up to the first that fails.
      const page = batch.events.slice(i, i + deliveryPage);
      const { gone, delivered } = await deliverSubscriptionEvents({
        subscriptionId,
        events: page,
        budgetMs: policy.deliveryTimeoutMs * 2,
      }).catch((err: unknown) => {
        if (err instanceof ActivityFailure) return { gone: false, delivered: 0 };
        throw err;
      });
      steps++;
      if (gone) return;
      if (delivered > 0) {
        failures = 0;
        cursor = page[delivered - 1]!.seq;
        i += delivered;
        if (delivered === page.length) continue;
      }
      // The event the page stopped at: alone, retried with backoff, and the subscription pauses if it never goes.
      const event = batch.events[i]!;
      try {
        const outcome = await deliverSubscriptionEvent({ subscriptionId, eventId: event.id, seq: event.seq, attemptsBefore: failures + 1 });
        if (outcome.gone) return;
        failures = 0;
        cursor = event.seq;
        i++;
      } catch (err) {
        if (!(err instanceof ActivityFailure)) throw err;
        failures += policy.pauseAfterAttempts;
        await moveTo('paused', err.cause?.message ?? err.message);
        break;
      }
      steps++;
    }
    if (state === 'paused') continue;
    if (batch.scannedTo > cursor) {
      // Events past the last delivery that the filter skipped: the stored cursor moves past them too.
      cursor = batch.scannedTo;
      await saveSubscriptionCursor({ subscriptionId, cursor });
      steps++;
    }
    if (batch.more) continue;
    if (steps >= policy.continueAsNewAfter || workflowInfo().continueAsNewSuggested) {
      await condition(allHandlersFinished);
      await continueAsNew<typeof subscriptionDelivery>({ ...input, cursor: Math.max(cursor, 0), state, failures });
    }
    // Nothing more to read: wait for a newer event, or the poll.
    await condition(() => known > cursor, policy.pollSeconds * 1000);
  }
}
