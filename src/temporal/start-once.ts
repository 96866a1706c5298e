import { WorkflowExecutionAlreadyStartedError, type Client, type Workflow, type WorkflowStartOptions } from '@temporalio/client';

/**
 * Starts a workflow under its business id. A start that finds it already started (a retried request,
 * an activity run again) is success: the caller attaches to the run there is.
 */
export async function startOnce<T extends Workflow>(client: Client, type: string, options: WorkflowStartOptions<T>): Promise<void> {
  try {
    await client.workflow.start<T>(type, options);
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}
