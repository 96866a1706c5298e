import { allHandlersFinished, condition, continueAsNew, patched, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { RecordedEvent, WorkspaceEvent } from '../events/types.js';
import { type WorkspaceEventsInput, artifactEventSignal, artifactEventsSignal, pendingEventsQuery } from './contracts/workspace-events.js';

const batchSize = 100;
/**
 * Continue as new past this much history, whatever the event count: an event costs about 3 KB of
 * history (its signal, the record activity's input, the dispatch's), so a few hundred events a run.
 * A task that replays a run (a worker's cache evicted it) replays at most this much.
 */
const maxHistoryEvents = 1_000;
const maxHistoryBytes = 512 * 1024;
/** How many recent event ids a run remembers (and hands to the next), to drop an event relayed twice. */
const recentIdsKept = 1_000;
/** The outbox's shape (issue #21): seq numbering, dedup by id, and the dispatch activity after each batch. */
const seqPatch = 'workspace-events-seq';

const { recordWorkspaceEvents, lastWorkspaceSeq } = proxyActivities<Activities>({
  startToCloseTimeout: '10 seconds', // one insert; short, so a killed worker's attempt is retried soon
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

const { dispatchWorkspaceEvents } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute', // subscriptions' and automations' starts: signals and reads, each with its deadline
  // It heartbeats while it runs: a killed worker's attempt is retried within seconds, not after the
  // minute, and the batches behind it (recorded only after it) are not held up (a CI failure, #21).
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

/**
 * One long-lived run per workspace (id `workspace-events-<workspaceId>`), fed by signal-with-start
 * from the outbox relay. Signals are durable in Temporal the moment they are accepted, so events that
 * arrive while no worker runs are recorded once one comes back.
 *
 * The workflow is the one writer of its workspace's `seq`: it numbers each batch from its own counter
 * (carried over continue-as-new; read from the store on a fresh start), records it (idempotent by
 * event id), and hands what was recorded to the consumers (subscriptions, automations). It continues
 * as new after `continueAsNewAfter` events or when its history grows past a bound, so no task ever
 * replays a long history.
 */
export async function workspaceEvents(input: WorkspaceEventsInput): Promise<void> {
  const current = patched(seqPatch);
  const queue: WorkspaceEvent[] = [...(input.pending ?? [])];
  const recent = new Set<string>(input.recentIds ?? []);
  for (const e of queue) recent.add(e.id);
  const take = (event: WorkspaceEvent) => {
    // Relayed twice (the fast path and the sweeper): already taken. Runs from before the patch kept every copy.
    if (current && recent.has(event.id)) return;
    recent.add(event.id);
    queue.push(event);
  };
  setHandler(artifactEventSignal, take);
  setHandler(artifactEventsSignal, (events) => events.forEach(take));
  setHandler(pendingEventsQuery, () => queue.length);

  if (!current) return legacyLoop(input, queue);

  let nextSeq = input.nextSeq ?? (await lastWorkspaceSeq(input.workspaceId)) + 1;
  let handled = 0;
  for (;;) {
    await condition(() => queue.length > 0);
    // Everything queued so far goes in one activity (bounded), so a busy workspace is not throttled
    // to one round trip per event.
    const batch = queue.slice(0, Math.min(batchSize, input.continueAsNewAfter - handled));
    const numbered: RecordedEvent[] = batch.map((event, i) => ({ ...event, seq: nextSeq + i }));
    const recorded = new Set(await recordWorkspaceEvents(numbered));
    queue.splice(0, batch.length);
    nextSeq += batch.length;
    handled += batch.length;
    // An event already recorded under an earlier seq (it came back after this run forgot its id) is not dispatched again.
    const fresh = numbered.filter((e) => recorded.has(e.id));
    if (fresh.length > 0) await dispatchWorkspaceEvents(input.workspaceId, fresh);
    const info = workflowInfo();
    if (
      handled >= input.continueAsNewAfter ||
      info.continueAsNewSuggested ||
      info.historyLength > maxHistoryEvents ||
      info.historySize > maxHistoryBytes
    ) {
      await condition(allHandlersFinished);
      const ids = [...recent];
      await continueAsNew<typeof workspaceEvents>({
        ...input,
        pending: queue,
        nextSeq,
        recentIds: ids.slice(Math.max(0, ids.length - recentIdsKept)),
      });
    }
  }
}

/** The loop as it was before the outbox, for runs that started then (their history has no patch marker). */
async function legacyLoop(input: WorkspaceEventsInput, queue: WorkspaceEvent[]): Promise<void> {
  let handled = 0;
  for (;;) {
    await condition(() => queue.length > 0);
    const batch = queue.slice(0, Math.min(batchSize, input.continueAsNewAfter - handled));
    await recordWorkspaceEvents(batch);
    queue.splice(0, batch.length);
    handled += batch.length;
    if (handled >= input.continueAsNewAfter || workflowInfo().continueAsNewSuggested) {
      await condition(allHandlersFinished);
      await continueAsNew<typeof workspaceEvents>({ ...input, pending: queue });
    }
  }
}
