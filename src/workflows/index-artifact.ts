import { proxyActivities } from '@temporalio/workflow';
import type { createActivities } from '../activities/index.js';

const { embedArtifact } = proxyActivities<ReturnType<typeof createActivities>>({
  // An embedding endpoint can be slow or rate-limited: retry with backoff for up to an hour.
  startToCloseTimeout: '2 minutes',
  scheduleToCloseTimeout: '1 hour',
  retry: { initialInterval: '2 seconds', maximumInterval: '2 minutes' },
});

export interface IndexArtifactInput {
  artifactId: string;
  revision: number;
}

export const indexArtifactWorkflowId = (artifactId: string, revision: number) => `index-artifact-${artifactId}-r${revision}`;

/** Computes and stores the embedding of one artifact revision (id `index-artifact-<id>-r<revision>`). */
export async function indexArtifact(input: IndexArtifactInput): Promise<string> {
  return embedArtifact(input);
}
