import { WorkflowExecutionAlreadyStartedError, type Client, type Workflow, type WorkflowStartOptions } from '@temporalio/client';
import { localWorkerClient } from './local-worker.js';

/**
 * Starts a workflow under its business id. A start that finds it already started (a retried request,
 * an activity run again) is success: the caller attaches to the run there is.
 *
 * `eager`: when a worker of this process polls the task queue, the start goes through that worker's
 * connection and asks for eager start (the first workflow task comes back with the start's answer,
 * to that worker, without a trip through the queue). The server may decline; the task then goes
 * through the queue as usual. Either way the start is persisted before it is answered. Says whether
 * the server handed the first task to this process's worker.
 */
export async function startOnce<T extends Workflow>(
  client: Client,
  type: string,
  options: WorkflowStartOptions<T>,
  { eager = false }: { eager?: boolean } = {},
): Promise<{ eagerlyStarted: boolean }> {
  const local = eager ? localWorkerClient(client.options.namespace, options.taskQueue) : undefined;
  try {
    const handle = local
      ? await local.workflow.start<T>(type, { ...options, requestEagerStart: true })
      : await client.workflow.start<T>(type, options);
    return { eagerlyStarted: handle.eagerlyStarted };
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    return { eagerlyStarted: false };
  }
}
