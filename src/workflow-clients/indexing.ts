import type { Client } from '@temporalio/client';
import type { ArtifactDoc } from '../store/artifacts.js';
import { RunKind } from '../temporal/search-attributes.js';
import {
  indexBacklogType,
  indexBacklogWorkflowId,
  revisionsWrittenSignal,
  type IndexBacklog,
  type IndexBacklogInput,
  type WrittenRevision,
} from '../workflows/contracts/index-backlog.js';
import { indexingQueue } from '../workflows/contracts/queues.js';

/** The indexing run's settings (workflows/index-backlog.ts); measured in bench/indexing-throughput.ts. */
export const indexBacklogSettings: IndexBacklogInput = {
  // About two seconds of MiniLM on one core: a search sees a batch's vectors soon after its writes.
  batchSize: 32,
  queueChunk: 1000,
  pollSeconds: 60,
  continueAsNewAfter: 500,
};

/** Revisions per signal: a burst of writes from this process shares signals. */
const maxPerSignal = 500;

interface Waiting {
  revision: WrittenRevision;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * Hands written revisions to the deployment's indexing run (`indexBacklog`, signal-with-start: it is
 * started if it is not running). Writes that arrive while a signal is on its way go together in the
 * next one; each caller's promise resolves once Temporal has accepted the signal carrying its revision.
 */
export class IndexingWorkflows {
  private waiting: Waiting[] = [];
  private sending: Promise<void> | null = null;

  constructor(
    /** A function, so that an activity can hand in its own context's client. */
    private readonly client: () => Client,
    private readonly taskQueue: string,
  ) {}

  /** Queues this revision's embedding. A second call for it (a retried write) queues nothing new. */
  start(doc: Pick<ArtifactDoc, '_id' | 'revision'>): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ revision: { artifactId: doc._id, revision: doc.revision }, resolve, reject });
      this.send();
    });
  }

  private send(): void {
    if (this.sending) return; // the signal under way sends the next batch when it is answered
    const batch = this.waiting.splice(0, maxPerSignal);
    this.sending = this.signal(batch.map((w) => w.revision))
      .then(
        () => batch.forEach((w) => w.resolve()),
        (err: unknown) => batch.forEach((w) => w.reject(err)),
      )
      .finally(() => {
        this.sending = null;
        if (this.waiting.length > 0) this.send();
      });
  }

  private async signal(revisions: WrittenRevision[]): Promise<void> {
    const taskQueue = indexingQueue(this.taskQueue);
    await this.client().workflow.signalWithStart<IndexBacklog, [WrittenRevision[]]>(indexBacklogType, {
      workflowId: indexBacklogWorkflowId(taskQueue),
      taskQueue,
      args: [indexBacklogSettings],
      signal: revisionsWrittenSignal,
      signalArgs: [revisions],
      typedSearchAttributes: [{ key: RunKind, value: 'index-backlog' }],
    });
  }
}
