// Graceful shutdown of the production entry points (issue #22), each as its own process sent SIGTERM:
// - the API: /readyz turns 503 at once, the listener closes after the drain delay, a long-poll in flight
//   when the signal came is still answered, an open event stream ends cleanly, and the process exits 0;
// - the worker: an apply running when the signal came finishes in that worker (no half batch is left),
//   the process exits 0, and the next worker completes the run with every action applied exactly once.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { agentId } from '../../src/invocations/agents/registry.js';
import { apiProcess, type ApiProcess } from '../helpers/api-process.js';
import { Api, eventually } from '../helpers/http.js';
import { adminEmail, adminPassword, startPlatform, type TestPlatform } from '../helpers/platform.js';
import { untilReady } from '../helpers/processes.js';
import { workerProcess } from '../helpers/worker-process.js';

let platform: TestPlatform;
let alice: Api & { userId: string };
const children: ChildProcess[] = [];
before(async () => {
  platform = await startPlatform({}, { worker: false });
  alice = await platform.newUser();
});
after(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await platform.close();
});

/** The exit of a child: its code and signal, once it has closed its output. */
const exitOf = (child: ChildProcess) =>
  once(child, 'close').then(([code, signal]) => ({ code: code as number | null, signal: signal as NodeJS.Signals | null }));

/** Resolves when the child writes `text` from now on (rejects if it exits first). */
const output = (child: ChildProcess, text: string, what: string) => untilReady(child, text, what, { timeoutMs: 90_000 });

/** Whether a new TCP connection to the port is refused. */
function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'));
  });
}

describe('the API on SIGTERM', () => {
  let api: ApiProcess;
  before(async () => {
    // The drain delay is the window in which a load balancer (here, the test) sees /readyz 503.
    api = await apiProcess(platform, { SHUTDOWN_DRAIN_DELAY_MS: '4000', SHUTDOWN_GRACE_MS: '60000' });
    children.push(api.child);
  });

  it('answers what is in flight, refuses new connections, ends event streams and exits 0', async () => {
    const replica = await new Api(api.url).login(adminEmail, adminPassword); // its tokens name the replica's own URL
    const port = Number(new URL(api.url).port);
    const ws = (await replica.post('/workspaces', { name: 'drain' })).body.id as string;
    const doc = (await replica.post('/artifacts', { title: 'A', content_type: 'text/markdown', content: '## One\nx', collection_id: ws }))
      .body.id as string;

    // An open event stream: its first bytes say it is being served.
    const stream = await fetch(`${api.url}/workspaces/${ws}/events/stream`, { headers: { authorization: `Bearer ${replica.token}` } });
    assert.equal(stream.status, 200);
    const reader = stream.body!.getReader();
    assert.match(new TextDecoder().decode((await reader.read()).value), /^retry: /);

    // A long-poll: no worker runs, so the run never settles and the request waits its full wait_seconds.
    const wait_seconds = 12;
    const longPoll = replica.post(`/artifacts/${agentId('split-sections')}/invoke`, { artifact_ids: [doc], wait_seconds });
    await eventually(
      async () => {
        for await (const run of platform.services.temporal.workflow.list({ query: `WorkspaceId = "${ws}"` }))
          if (run.workflowId.startsWith('invoke-')) return true;
        return false;
      },
      30_000,
      'the invocation started (the long-poll is waiting)',
    );

    const exited = exitOf(api.child);
    const draining = output(api.child, '"API draining"', 'API');
    api.child.kill('SIGTERM');
    await draining;

    // Draining: not ready (a fresh connection, still accepted during the drain delay), but alive.
    const ready = await new Api(api.url).get('/readyz');
    assert.equal(ready.status, 503, ready.text);
    assert.match(ready.body.type, /not-ready$/);
    assert.equal(ready.body.draining, true);
    assert.equal(ready.headers.get('connection'), 'close');

    await output(api.child, '"API stopped accepting"', 'API');
    assert.equal(await refused(port), true, 'a new connection is refused once the listener closed');

    // The event stream ended cleanly: the body finishes, no error.
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read());

    const answered = await longPoll;
    assert.equal(answered.status, 202, answered.text);
    assert.ok(answered.body.invocation_id);

    assert.deepEqual(await exited, { code: 0, signal: null });
  });
});

describe('the API on SIGTERM, with a client that never finishes its request', () => {
  it('cuts it at the end of the grace, still closes its services, and exits 1 before its deadline', async () => {
    const api = await apiProcess(platform, { SHUTDOWN_GRACE_MS: '6000' });
    children.push(api.child);
    // A public route that reads a body, trickled a byte at a time: without a bound, server.close() waits for it.
    const socket = connect(Number(new URL(api.url).port), '127.0.0.1');
    await once(socket, 'connect');
    socket.write('POST /auth/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{');
    const trickle = setInterval(() => socket.writable && socket.write(' '), 500);
    socket.on('error', () => undefined);
    try {
      const exited = exitOf(api.child);
      const cut = output(api.child, 'requests still open at the end of the grace, cut', 'API');
      // Cut by the drain itself, which then closes the services and flushes traces, not by the deadline's exit.
      const failed = output(api.child, 'were cut at the end of SHUTDOWN_GRACE_MS', 'API');
      api.child.kill('SIGTERM');
      await Promise.all([cut, failed]);
      assert.deepEqual(await exited, { code: 1, signal: null });
    } finally {
      clearInterval(trickle);
      socket.destroy();
    }
  });
});

describe('the worker on SIGTERM', () => {
  const sections = 200;

  it('lets the running apply finish, exits 0, and the next worker completes it exactly once', async () => {
    const artifacts = platform.services.db.collection('artifacts');
    let worker = await workerProcess(platform, { WORKER_SHUTDOWN_GRACE_MS: '60000' });
    children.push(worker);
    const ws = (await alice.post('/workspaces', { name: 'drain-worker' })).body.id;
    const content = Array.from({ length: sections }, (_, i) => `## S${i}\nSection ${i} body.`).join('\n\n');
    const doc = (await alice.post('/artifacts', { title: 'Long', content_type: 'text/markdown', content, collection_id: ws })).body.id;
    const proposed = await alice.post(`/artifacts/${agentId('split-sections')}/invoke`, { artifact_ids: [doc], wait_seconds: 60 });
    assert.equal(proposed.status, 200, proposed.text);
    const id = proposed.body.invocation_id as string;
    const applying = await alice.post(`/invocations/${id}/apply`, { wait_seconds: 0 });
    assert.equal(applying.status, 202, applying.text);

    const made = () => artifacts.countDocuments({ 'provenance.source.invocation_id': id });
    // Polled back to back: the signal must land while the apply runs.
    let atSignal = 0;
    for (const deadline = Date.now() + 60_000; atSignal < 1 && Date.now() < deadline;) atSignal = await made();
    const exited = exitOf(worker);
    const stopped = output(worker, '"worker stopped"', 'worker'); // our one shutdown path ran to its end
    worker.kill('SIGTERM');
    await stopped;
    assert.deepEqual(await exited, { code: 0, signal: null }, 'the worker exits 0 after its graceful stop');
    const atExit = await made();
    assert.ok(atExit >= atSignal, `${atExit} made at exit, ${atSignal} when signalled`);
    assert.equal(atExit % 50, 0, `the batch running at the signal finished: ${atExit} made (batches of 50)`);

    worker = await workerProcess(platform);
    children.push(worker);
    const done = await eventually(
      async () => {
        const r = await alice.get(`/invocations/${id}`);
        return r.body.status === 'completed' ? r.body : null;
      },
      90_000,
      'the apply completed',
    );
    assert.equal(done.actions.filter((a: { status: string }) => a.status === 'applied').length, sections);
    const docs = await artifacts.find({ 'provenance.source.invocation_id': id }).toArray();
    assert.equal(docs.length, sections);
    assert.equal(new Set(docs.map((d) => d.provenance.source.action_id)).size, sections, 'one artifact per action');
    worker.kill('SIGTERM');
  });
});
