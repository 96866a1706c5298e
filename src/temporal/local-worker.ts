import type { Client } from '@temporalio/client';

/**
 * Clients on the connection of a worker that runs in this process, by namespace and task queue. A
 * workflow started through one may be started eagerly: the server hands its first workflow task back
 * in the start's answer, to this process's worker, instead of through the task queue (no matching
 * round trip). The start is persisted as any other; only its first task skips the queue. A process
 * without a worker (the API on its own) has none, and starts as before.
 */
const local = new Map<string, { client: Client; running: () => boolean }>();

const keyOf = (namespace: string, taskQueue: string) => `${namespace}\u0000${taskQueue}`;

/**
 * Registers the client on the connection of a worker polling `taskQueue`; `running` says whether that
 * worker still polls (one shutting down or stopped is passed over, and the start goes the usual way).
 */
export function registerLocalWorker(taskQueue: string, client: Client, running: () => boolean): void {
  local.set(keyOf(client.options.namespace, taskQueue), { client, running });
}

/** The client of a running worker of this process polling `taskQueue` in `namespace`, if there is one. */
export function localWorkerClient(namespace: string, taskQueue: string): Client | undefined {
  const key = keyOf(namespace, taskQueue);
  const found = local.get(key);
  if (found && !found.running()) local.delete(key);
  return found?.running() ? found.client : undefined;
}
