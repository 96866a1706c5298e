import type { Client } from '@temporalio/client';
import type { ArtifactDoc } from '../store/artifacts.js';
import { ArtifactId, RunKind } from '../temporal/search-attributes.js';
import { indexArtifactWorkflowId } from '../workflows/contracts/ids.js';
import { indexArtifactType, type IndexArtifact } from '../workflows/contracts/index-artifact.js';
import { indexingQueue } from '../workflows/contracts/queues.js';
import { startOnce } from '../temporal/start-once.js';

/** Starts the embedding of artifact revisions (`indexArtifact`), on the indexing task queue. */
export class IndexingRunner {
  constructor(
    /** A function, so that an activity can hand in its own context's client. */
    private readonly client: () => Client,
    private readonly taskQueue: string,
  ) {}

  /**
   * Starts embedding this revision. Its workflow id is the revision's, so a second start (a retried
   * write, an activity run again) finds it started or done, and that is success.
   */
  async start(doc: Pick<ArtifactDoc, '_id' | 'revision'>): Promise<void> {
    await startOnce<IndexArtifact>(this.client(), indexArtifactType, {
      workflowId: indexArtifactWorkflowId(doc._id, doc.revision),
      taskQueue: indexingQueue(this.taskQueue),
      args: [{ artifactId: doc._id, revision: doc.revision }],
      typedSearchAttributes: [
        { key: ArtifactId, value: doc._id },
        { key: RunKind, value: 'index-artifact' },
      ],
    });
  }
}
