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
  // A batch writes a few hundred items with a handful of inserts; files (PDFs) and URLs take longer.
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '30 seconds', // a killed worker's batch is retried soon, not after the whole timeout
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
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
    try {
      counts = await importBatch({ importId: input.importId, workspaceId: input.workspaceId, from: next, to, before: counts });
    } catch (err) {
      // Refused (the workspace gone, the requester's grant withdrawn): what was imported stays; the rest is not.
      if (err instanceof ActivityFailure && err.cause instanceof ApplicationFailure && err.cause.type === importRefusedFailure) {
        await finishImport({ importId: input.importId, counts, error: err.cause.message });
        show('failed');
        throw ApplicationFailure.nonRetryable(err.cause.message, importRefusedFailure);
      }
      throw err;
    }
    next = to;
    show('importing');
  }
  await finishImport({ importId: input.importId, counts });
  show('completed');
  return counts;
}
