import { allHandlersFinished, condition, continueAsNew, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import {
  indexBacklogStatusQuery,
  revisionsWrittenSignal,
  type IndexBacklogInput,
  type WrittenRevision,
} from './contracts/index-backlog.js';

const { queueEmbeddings } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds', // one insert
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

const { embedQueued } = proxyActivities<Activities>({
  // A batch on a busy CPU, or an embedding endpoint: slow or rate-limited, retried with backoff. The
  // backlog entries stay until their vectors are stored, so a retry (or the next run) finds them.
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '15 seconds', // the activity beats while its process lives: a killed worker's batch is retried soon
  retry: { initialInterval: '2 seconds', maximumInterval: '2 minutes' },
});

/**
 * The deployment's indexing (id `index-backlog-<indexing queue>`): writes signal their revisions; the
 * run moves them into the backlog collection at once (so its own state stays small), and embeds the
 * backlog in batches, one batch at a time: a burst of writes queues in the store, not in memory, and
 * never takes more than one activity slot and its model call. Continues as new when its history grows.
 */
export async function indexBacklog(input: IndexBacklogInput): Promise<void> {
  let pending: WrittenRevision[] = [...(input.pending ?? [])];
  /** Queueing activities completed: an embedding batch that began before the last one may have missed its entries. */
  let queued = 0;
  let handled = 0;
  let batches = 0;
  let activities = 0;
  setHandler(revisionsWrittenSignal, (revisions) => {
    pending.push(...revisions);
  });
  setHandler(indexBacklogStatusQuery, () => ({ pending: pending.length, handled, batches }));

  const due = () => activities >= input.continueAsNewAfter || workflowInfo().continueAsNewSuggested;
  // Queueing runs beside embedding: a write's revision reaches the store within one activity, whatever the embedder does.
  let queueing = true;
  const queue = (async () => {
    while (queueing) {
      await condition(() => pending.length > 0 || !queueing);
      // On the way to continue-as-new, what is still pending after the activity under way is carried over.
      while (pending.length > 0 && queueing) {
        const chunk = pending.slice(0, input.queueChunk);
        await queueEmbeddings(chunk);
        pending = pending.slice(chunk.length);
        queued++;
        activities++;
      }
    }
  })();

  for (;;) {
    const seen = queued;
    const outcome = await embedQueued({ limit: input.batchSize });
    activities++;
    batches++;
    handled += outcome.taken;
    if (due()) break;
    if (outcome.more) continue;
    // Nothing left: wait until a write's revision is queued, or look again after the poll.
    await condition(() => queued > seen, input.pollSeconds * 1000);
  }
  queueing = false;
  await queue;
  await condition(allHandlersFinished);
  await continueAsNew<typeof indexBacklog>({ ...input, pending });
}
