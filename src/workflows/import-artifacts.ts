import {
  ActivityFailure,
  ApplicationFailure,
  continueAsNew,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import { importRefusedFailure, importStatusQuery, type ImportArtifactsInput } from './contracts/import-artifacts.js';
import type { ImportCounts } from '../store/imports.js';

const { importBatch } = proxyActivities<Activities>({
  // A batch reads for at most 3 minutes (files, URLs), then writes what it read with a handful of inserts.
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '30 seconds', // a killed worker's batch is retried soon, not after the whole timeout
  // A batch that fails this often is not failing for a moment (the store down is retried for about
  // an hour and a half): the import ends `failed`, saying from which item, rather than running forever.
  retry: { initialInterval: '1 second', maximumInterval: '10 minutes', maximumAttempts: 15 },
});

const { finishImport } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

/** Batches per run before it continues as new (each batch adds a few events to its history). */
const batchesPerRun = 200;

/**
 * One bulk import (id `import-<workspace>-<import>`): its staged items, batch after batch, each batch
 * one activity that writes every item once (item outcomes and key claims are unique inserts, so a
 * retried batch redoes nothing), then the import's final state. A `status` query answers the counts.
 */
export async function importArtifacts(input: ImportArtifactsInput): Promise<ImportCounts> {
  let counts: ImportCounts = input.counts ?? { done: 0, created: 0, skipped: 0, failed: 0 };
  let next = input.from ?? 0;
  setHandler(importStatusQuery, () => ({ total: input.total, counts, next }));
  // What the Temporal UI shows as the run's current details (Markdown), kept as the batches go.
  const show = (state: string) =>
    setCurrentDetails(
      `**${state}**: ${counts.done} of ${input.total} items, ${counts.created} created, ${counts.skipped} skipped, ${counts.failed} failed`,
    );
  show('importing');
  for (let batches = 0; next < input.total; batches++) {
    if (batches >= batchesPerRun || workflowInfo().continueAsNewSuggested) {
      await continueAsNew<typeof importArtifacts>({ ...input, from: next, counts });
    }
    const to = Math.min(input.total, next + input.batch);
    let done;
    try {
      done = await importBatch({ importId: input.importId, workspaceId: input.workspaceId, from: next, to, before: counts });
    } catch (err) {
      // Refused (the workspace gone, the requester's grant withdrawn), or a batch that failed every
      // attempt: what was imported stays, the rest is not, and the import says why.
      if (!(err instanceof ActivityFailure)) throw err;
      const refused = err.cause instanceof ApplicationFailure && err.cause.type === importRefusedFailure;
      const why = refused ? err.cause!.message : `items from ${next} on could not be imported: ${err.cause?.message ?? err.message}`;
      await finishImport({ importId: input.importId, counts, error: why });
      show('failed');
      throw ApplicationFailure.nonRetryable(why, importRefusedFailure);
    }
    counts = done.counts;
    next = done.next;
    show('importing');
  }
  await finishImport({ importId: input.importId, counts });
  show('completed');
  return counts;
}
