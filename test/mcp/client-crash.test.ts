// A worker killed in the middle of an external tool call: the call is made again on the next worker,
// and the invocation completes with its result.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, it } from 'node:test';
import { eventually, type Api } from '../helpers/http.js';
import { everythingHttp, type Started } from '../helpers/mcp-servers.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';
import { workerProcess } from '../helpers/worker-process.js';

let platform: TestPlatform;
let alice: Api;
let everything: Started;
let worker: ChildProcess | undefined;
const workerEnv = { MCP_OUTBOUND_ALLOW: '127.0.0.0/8' };

before(async () => {
  platform = await startPlatform({ MCP_OUTBOUND_ALLOW: '127.0.0.0/8' }, { worker: false });
  alice = await platform.newUser();
  everything = await everythingHttp();
});
after(async () => {
  worker?.kill('SIGKILL');
  await platform?.close();
  await everything?.close();
});

it('resumes a tool call after the worker running it is killed', async () => {
  const ws = (await alice.post('/workspaces', { name: 'crash' })).body.id;
  const server = await alice.post('/artifacts', {
    title: 'everything',
    content_type: 'application/vnd.platform.mcp-server+json',
    content: JSON.stringify({ transport: { type: 'http', url: everything.url } }),
    collection_id: ws,
  });
  assert.equal(server.status, 201, server.text);
  worker = await workerProcess(platform, workerEnv);

  const started = await alice.post(`/artifacts/${server.body.id}/invoke`, {
    name: 'trigger-long-running-operation',
    arguments: { duration: 4, steps: 4 },
    wait_seconds: 0,
  });
  assert.equal(started.status, 202, started.text);
  const handle = platform.services.temporal.workflow.getHandle(started.body.workflow_id);
  // Killed once the call is under way: the activity has started and reported progress.
  await eventually(
    async () => (await handle.describe()).raw.pendingActivities?.some((a) => a.heartbeatDetails?.payloads?.length),
    20_000,
    'the call to report progress',
  );
  worker.kill('SIGKILL');
  await new Promise((r) => worker!.once('exit', r));

  worker = await workerProcess(platform, workerEnv);
  const done = await eventually(
    async () => {
      const r = await alice.get(`/invocations/${started.body.invocation_id}`);
      return r.body.status === 'completed' && r.body;
    },
    60_000,
    'the invocation to complete',
  );
  assert.equal(done.result.isError ?? false, false, JSON.stringify(done.result));
  assert.match(done.result.content[0].text, /Long running operation completed/);
  const attempts = (await handle.fetchHistory()).events!.flatMap((e) =>
    e.activityTaskStartedEventAttributes ? [e.activityTaskStartedEventAttributes.attempt] : [],
  );
  assert.deepEqual(attempts, [2], 'the second attempt completed it (the first died with its worker)');
});

it('makes a short call (a local activity) again on the next worker when the worker making it is killed', async () => {
  const ws = (await alice.post('/workspaces', { name: 'crash-local' })).body.id;
  // An attempt timeout within MCP_CALL_LOCAL_MAX_SECONDS (10 s by default): the call runs as a local activity.
  const server = await alice.post('/artifacts', {
    title: 'everything, short calls',
    content_type: 'application/vnd.platform.mcp-server+json',
    content: JSON.stringify({ transport: { type: 'http', url: everything.url }, timeout_seconds: 8 }),
    collection_id: ws,
  });
  assert.equal(server.status, 201, server.text);
  // The one worker: the one the test before left running is stopped.
  worker?.kill('SIGKILL');
  if (worker && worker.exitCode === null && worker.signalCode === null) await new Promise((r) => worker!.once('exit', r));
  worker = await workerProcess(platform, workerEnv);

  const started = await alice.post(`/artifacts/${server.body.id}/invoke`, {
    name: 'trigger-long-running-operation',
    arguments: { duration: 3, steps: 3 },
    wait_seconds: 0,
  });
  assert.equal(started.status, 202, started.text);
  const handle = platform.services.temporal.workflow.getHandle(started.body.workflow_id);
  // Killed while the first workflow task, which makes the call, is under way.
  await eventually(
    async () => (await handle.fetchHistory()).events!.some((e) => e.workflowTaskStartedEventAttributes),
    20_000,
    'the workflow task making the call to start',
  );
  await new Promise((r) => setTimeout(r, 500));
  worker.kill('SIGKILL');
  await new Promise((r) => worker!.once('exit', r));

  worker = await workerProcess(platform, workerEnv);
  const done = await eventually(
    async () => {
      const r = await alice.get(`/invocations/${started.body.invocation_id}`);
      return r.body.status === 'completed' && r.body;
    },
    60_000,
    'the invocation to complete',
  );
  assert.equal(done.result.isError ?? false, false, JSON.stringify(done.result));
  assert.match(done.result.content[0].text, /Long running operation completed/);
  const events = (await handle.fetchHistory()).events!;
  assert.equal(events.filter((e) => e.activityTaskScheduledEventAttributes).length, 0, 'no activity task: the call was a local activity');
  assert.equal(events.filter((e) => e.markerRecordedEventAttributes).length, 1, 'the call recorded once');
  assert.ok(
    events.some((e) => e.workflowTaskTimedOutEventAttributes || e.workflowTaskFailedEventAttributes),
    'the killed worker’s workflow task ended without completing; the next worker made the call',
  );
});
