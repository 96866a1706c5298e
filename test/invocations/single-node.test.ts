// Single-node mode (API_RUNS_WORKER, issue #23): the API process runs the platform worker too. With no
// other worker anywhere, it completes an apply-mode invocation (started eagerly on its own worker) and a
// commit, answers /readyz 200 only while its worker runs, and on SIGTERM drains the requests and then the
// worker before exiting 0.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, it } from 'node:test';
import { agentId } from '../../src/invocations/agents/registry.js';
import { apiProcess, type ApiProcess } from '../helpers/api-process.js';
import { Api, eventually } from '../helpers/http.js';
import { adminEmail, adminPassword, startPlatform, type TestPlatform } from '../helpers/platform.js';
import { untilReady } from '../helpers/processes.js';

let platform: TestPlatform;
let api: ApiProcess;
let admin: Api;
before(async () => {
  // No worker in the test process: only the API process's own worker can run anything.
  platform = await startPlatform({}, { worker: false });
  api = await apiProcess(platform, {
    API_RUNS_WORKER: 'true',
    TEMPORAL_WORKFLOW_BUNDLE: process.env.TEST_WORKFLOW_BUNDLE!, // test/run.ts builds it once
    WORKER_SHUTDOWN_GRACE_MS: '20000',
    SHUTDOWN_DRAIN_DELAY_MS: '2000', // the window in which the test sees /readyz 503
  });
  admin = await new Api(api.url).login(adminEmail, adminPassword);
});
after(async () => {
  if (api?.child.exitCode === null && api.child.signalCode === null) api.child.kill('SIGKILL');
  await platform?.close();
});

it('is ready, with its worker running', async () => {
  const ready = await new Api(api.url).get('/readyz');
  assert.equal(ready.status, 200, ready.text);
  assert.equal(ready.body.checks.worker, 'up', 'the readiness checks report its own worker');
});

it('completes an apply-mode invocation, started eagerly on its own worker', async () => {
  const ws = (await admin.post('/workspaces', { name: 'single-node' })).body.id as string;
  const doc = await admin.post('/artifacts', {
    title: 'Plan',
    content_type: 'text/markdown',
    content: 'Hiring plan: two engineers.',
    collection_id: ws,
  });
  assert.equal(doc.status, 201, doc.text);
  const r = await admin.post(`/artifacts/${agentId('tag-keywords')}/invoke`, {
    workspace_id: ws,
    mode: 'apply',
    params: { rules: { hiring: ['hiring'] } },
  });
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.status, 'completed');
  assert.equal(r.body.actions[0].status, 'applied');
  assert.deepEqual((await admin.get(`/artifacts/${doc.body.id}`)).body.context.tags, ['hiring']);
  // The event workflow (signalled by the apply's write, or by this process's sweeper) records the update.
  await eventually(
    async () => {
      const events = await admin.get(`/workspaces/${ws}/events`);
      return events.body.items?.some((e: { kind: string }) => e.kind === 'artifact_updated') ? true : null;
    },
    30_000,
    'the update was recorded as an event',
  );
});

it('completes a commit', async () => {
  const ws = (await admin.post('/workspaces', { name: 'single-node-commit' })).body.id as string;
  const col = (await admin.post('/collections', { name: 'single-node-published' })).body.id as string;
  await admin.post('/artifacts', { title: 'Alpha', content_type: 'text/markdown', content: '# Alpha', collection_id: ws });
  const req = await admin.post(`/workspaces/${ws}/commits`, { collection_id: col, message: 'first' });
  assert.equal(req.status, 202, req.text);
  const state = async (want: string) =>
    eventually(async () => ((await admin.get(`/commits/${req.body.id}`)).body.state === want ? true : null), 60_000, `commit ${want}`);
  await state('awaiting_approval');
  assert.equal((await admin.post(`/commits/${req.body.id}/approve`, {})).status, 200);
  await state('committed');
});

it('on SIGTERM: /readyz 503, the requests and then its worker drain, and the process exits 0', async () => {
  const exited = once(api.child, 'close');
  const draining = untilReady(api.child, '"API draining"', 'API', { timeoutMs: 30_000 });
  let output = '';
  api.child.stdout!.on('data', (d) => (output += d));
  api.child.kill('SIGTERM');
  await draining;
  const ready = await new Api(api.url).get('/readyz');
  assert.equal(ready.status, 503, ready.text);
  assert.equal(ready.body.draining, true);
  const [code, signal] = await exited;
  assert.deepEqual({ code, signal }, { code: 0, signal: null }, output.slice(-2000));
  assert.match(output, /"API stopped"/);
});
