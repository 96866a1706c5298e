// Eager workflow start (issue #23): a start made in a process whose worker polls the task queue hands
// the first workflow task to that worker; without such a worker (stopped, or another queue) it goes
// through the queue as before.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, it } from 'node:test';
import { startOnce } from '../../src/temporal/start-once.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

let platform: TestPlatform;
before(async () => {
  platform = await startPlatform();
});
after(() => platform?.close());

/** A workflow type no worker has: the run is started (eagerly or not) and then terminated; only the start matters here. */
async function start(taskQueue: string, eager: boolean): Promise<boolean> {
  const workflowId = `eager-test-${randomUUID()}`;
  const client = platform.services.temporal;
  const { eagerlyStarted } = await startOnce(client, 'eagerStartProbe', { workflowId, taskQueue, args: [] }, { eager });
  await client.workflow.getHandle(workflowId).terminate('test over');
  return eagerlyStarted;
}

it('starts eagerly on the worker of this process, only when asked and only on its task queue', async () => {
  const queue = platform.config.TEMPORAL_TASK_QUEUE;
  assert.equal(await start(queue, true), true, 'eager: the worker of this process polls the queue');
  assert.equal(await start(queue, false), false, 'not asked');
  assert.equal(await start(`${queue}-elsewhere`, true), false, 'no worker of this process polls that queue');
});

it('starts through the queue once the worker of this process has stopped', async () => {
  await platform.stopWorker();
  try {
    assert.equal(await start(platform.config.TEMPORAL_TASK_QUEUE, true), false);
  } finally {
    await platform.startWorker();
  }
});
