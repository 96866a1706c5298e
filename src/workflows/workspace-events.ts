import { condition, continueAsNew, proxyActivities, setHandler, workflowInfo, allHandlersFinished } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { WorkspaceEvent } from '../events/types.js';
import { type WorkspaceEventsInput, artifactEventSignal, pendingEventsQuery } from './contracts/workspace-events.js';

const batchSize = 100;

const { recordWorkspaceEvents } = proxyActivities<Activities>({
  startToCloseTimeout: '10 seconds', // one upsert; short, so a killed worker's attempt is retried soon
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

/**
 * One long-lived run per workspace (id `workspace-events-<workspaceId>`), fed by signal-with-start on
 * every artifact write. Signals are durable in Temporal the moment they are accepted, so events that
 * arrive while no worker runs are recorded once one comes back.
 */
export async function workspaceEvents(input: WorkspaceEventsInput): Promise<void> {
  const queue: WorkspaceEvent[] = [...(input.pending ?? [])];
  setHandler(artifactEventSignal, (event) => void queue.push(event));
  setHandler(pendingEventsQuery, () => queue.length);

  let handled = 0;
  for (;;) {
    await condition(() => queue.length > 0);
    // Everything queued so far goes in one activity (bounded), so a busy workspace is not throttled
    // to one round trip per event.
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
