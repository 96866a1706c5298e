import type { Client } from '@temporalio/client';
import type { Config } from '../kernel/config/env.js';
import type { ImportDoc } from '../store/imports.js';
import { PrincipalId, RunKind, WorkspaceId } from '../temporal/search-attributes.js';
import { startOnce } from '../temporal/start-once.js';
import { importArtifactsType, type ImportArtifacts } from '../workflows/contracts/import-artifacts.js';

/** The API's side of a bulk import: starts its workflow. */
export class ImportWorkflows {
  constructor(
    private readonly client: Client,
    private readonly config: Config,
  ) {}

  /** Starts the workflow of a recorded import; a retried request finds it already started. */
  async start(doc: ImportDoc): Promise<void> {
    await startOnce<ImportArtifacts>(this.client, importArtifactsType, {
      workflowId: doc.workflow_id,
      taskQueue: this.config.TEMPORAL_TASK_QUEUE,
      workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY',
      args: [{ importId: doc._id, workspaceId: doc.workspace_id, total: doc.total, batch: this.config.IMPORT_BATCH }],
      // What the Temporal UI shows in its list and at the top of the run.
      staticSummary: `Import ${doc.total} ${doc.source === 'files' ? 'files' : 'items'} into workspace ${doc.workspace_id}`,
      typedSearchAttributes: [
        { key: WorkspaceId, value: doc.workspace_id },
        { key: PrincipalId, value: doc.requested_by },
        { key: RunKind, value: 'import' },
      ],
    });
  }
}
