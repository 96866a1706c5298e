import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import { type IndexArtifactInput } from './contracts/index-artifact.js';

const { embedArtifact } = proxyActivities<Activities>({
  // An embedding endpoint can be slow or rate-limited: retry with backoff for up to an hour.
  startToCloseTimeout: '2 minutes',
  scheduleToCloseTimeout: '1 hour',
  retry: { initialInterval: '2 seconds', maximumInterval: '2 minutes' },
});

/**
 * Computes and stores the embedding of one artifact revision (id `index-artifact-<id>-r<revision>`).
 * No longer started (writes signal `indexBacklog`, which embeds in batches); registered still, so that
 * runs started before a deploy finish.
 */
export async function indexArtifact(input: IndexArtifactInput): Promise<string> {
  return embedArtifact(input);
}
