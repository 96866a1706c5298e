// A wedged engine is found and recovered without a person (issue 31): the store's server is paused
// (SIGSTOP to PostgreSQL and all its backends) and never resumed. While it is stalled every request
// still ends within the storage deadline (503 storage-unavailable) and /readyz says 503; the engine's
// watchdog (temporal-dev/engines.ts, the one npm start and the test harness run, here with a short
// window) finds that it answers no probe, kills it and lets its supervisor restart it; PostgreSQL
// recovers its data, the platform's pool drops its dead connections, /readyz says 200 again and the
// same requests succeed, on the data written before the stall. The engine is this file's own. The
// Temporal dev server's watchdog does the same for a stalled Temporal server (one of this file's own).
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import { freePort, processTree, startEngines, type Engines } from '../../temporal-dev/engines.js';
import { adminEmail, adminPassword, startPlatform, type TestPlatform } from '../helpers/platform.js';
import { startPrivateEngine, type PrivateEngine } from '../helpers/private-engine.js';
import { eventually, type Api } from '../helpers/http.js';

/** The storage deadline this platform runs with (STORAGE_TIMEOUT_MS). */
const deadlineMs = 2000;
/** What "within the deadline" allows on top: the HTTP round trip and a loaded CI machine. */
const marginMs = 1500;
/** The watchdog's window (STORE_WATCHDOG_MS): a probe every second, killed after 4 failed in a row. */
const watchdogMs = 4000;
/** How long the test waits for each step before failing (no timing goal: a bound so nothing hangs). */
const patienceMs = 90_000;

let engine: PrivateEngine;
let platform: TestPlatform;
let admin: Api;
let workspace: string;
/** Written before the stall and never touched again. */
let kept: string;
/** Edited by the requests during and after the stall. */
let edited: string;
const engineLog: { at: number; line: string }[] = [];

interface Timed {
  status: number;
  ms: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

/** One request with a client-side timeout far beyond the deadline, so a hang fails the test instead of stalling it. */
async function timed(method: string, path: string, body?: unknown, token: string | undefined = admin.token): Promise<Timed> {
  const started = Date.now();
  const res = await fetch(platform.url + path, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = text;
  }
  return { status: res.status, ms: Date.now() - started, headers: res.headers, body: parsed };
}

const requests: Record<string, () => Promise<Timed>> = {
  'GET /workspaces': () => timed('GET', '/workspaces'),
  'GET /artifacts/{id}': () => timed('GET', `/artifacts/${kept}`),
  'GET /artifacts?collection_id': () => timed('GET', `/artifacts?collection_id=${workspace}&limit=10`),
  'POST /artifacts': () =>
    timed('POST', '/artifacts', { title: 'around the stall', content_type: 'text/markdown', content: 'x', collection_id: workspace }),
  'PATCH /artifacts/{id}': () => timed('PATCH', `/artifacts/${edited}`, { title: `edited ${Date.now()}` }),
  'POST /auth/login': () => timed('POST', '/auth/login', { email: adminEmail, password: adminPassword }, undefined),
};

interface Round {
  answers: [string, Timed][];
  readyz: Timed;
  /** Watchdog kills before the round started and after it ended. */
  killsBefore: number;
  killsAfter: number;
}

/** Every request and /readyz at once; each must end within the deadline, as a success or a 503 storage-unavailable. */
async function round(): Promise<Round> {
  const killsBefore = engine.process.watchdogKills;
  const [readyz, ...answers] = await Promise.all([
    timed('GET', '/readyz', undefined, undefined),
    ...Object.values(requests).map((send) => send()),
  ]);
  const named = Object.keys(requests).map((name, i) => [name, answers[i]!] as [string, Timed]);
  for (const [name, a] of [...named, ['/readyz', readyz] as [string, Timed]]) {
    assert.ok(a.ms < deadlineMs + marginMs, `${name} answered in ${a.ms} ms, beyond the ${deadlineMs} ms deadline`);
    if (a.status >= 300) {
      assert.equal(a.status, 503, `${name}: ${a.status} ${JSON.stringify(a.body)}`);
      if (name === '/readyz') assert.equal(a.body.checks.mongodb, 'down', JSON.stringify(a.body));
      else {
        assert.equal(a.body.type, 'urn:platform:problem:storage-unavailable', `${name}: ${JSON.stringify(a.body)}`);
        assert.equal(a.headers.get('retry-after'), '1', name);
      }
    }
  }
  return { answers: named, readyz, killsBefore, killsAfter: engine.process.watchdogKills };
}

const summary = (r: Round) =>
  `${r.answers.map(([name, a]) => `${name} ${a.status} in ${a.ms} ms`).join('; ')}; /readyz ${r.readyz.status} in ${r.readyz.ms} ms`;

before(async () => {
  engine = await startPrivateEngine(undefined, (line) => engineLog.push({ at: Date.now(), line }), { watchdogMs });
  platform = await startPlatform({ STORE_URI: engine.uri, STORAGE_TIMEOUT_MS: String(deadlineMs) }, { worker: false });
  admin = await platform.admin();
  workspace = (await admin.post('/workspaces', { name: 'watchdog' })).body.id;
  const made = async (title: string, content: string) => {
    const r = await admin.post('/artifacts', { title, content_type: 'text/markdown', content, collection_id: workspace });
    assert.equal(r.status, 201, r.text);
    return r.body.id as string;
  };
  kept = await made('before the stall', 'written before the engine wedged');
  edited = await made('to edit', 'edited around the stall');
});

after(async () => {
  for (const { line } of engineLog) console.log(`[watchdog] engine: ${line}`);
  // Anything the platform logged as an error (a 500 names its cause here).
  for (const line of platform?.logs.join('').split('\n') ?? [])
    if (/"level":(50|60)/.test(line)) console.log(`[watchdog] platform: ${line.slice(0, 1500)}`);
  await platform?.close();
  await engine?.stop();
});

describe('a store engine that stalls and is never resumed', () => {
  it('requests end 503 within the deadline while it is stalled; the watchdog kills and restarts it; /readyz and the requests recover on the data written before', async () => {
    const ready = await timed('GET', '/readyz', undefined, undefined);
    assert.equal(ready.status, 200, JSON.stringify(ready.body));
    assert.equal(engine.process.watchdogKills, 0, 'no watchdog kill while the engine answers');
    const stalledPid = engine.pid;

    engine.pause(); // never resumed
    const paused = Date.now();

    // Stalled: while no kill has happened from before to after a round, the engine was stopped all
    // through it, and every answer is the 503 (round() checks each is within the deadline).
    let stalledRounds = 0;
    while (engine.process.watchdogKills === 0 && Date.now() - paused < patienceMs) {
      const r = await round();
      if (r.killsAfter > 0) break;
      for (const [name, a] of r.answers) assert.equal(a.status, 503, `${name} while the engine is stalled: ${JSON.stringify(a.body)}`);
      assert.equal(r.readyz.status, 503, `/readyz while the engine is stalled: ${JSON.stringify(r.readyz.body)}`);
      assert.deepEqual(r.readyz.body.checks, { mongodb: 'down', temporal: 'up' });
      if (stalledRounds === 0) console.log(`[watchdog] stalled: ${summary(r)}`);
      stalledRounds++;
    }
    const killed = Date.now();
    assert.ok(engine.process.watchdogKills > 0, `the watchdog killed the stalled engine within ${patienceMs / 1000} s`);
    assert.ok(stalledRounds > 0, 'at least one round of requests ran while the engine was stalled');

    // Restarted: each round still ends within the deadline (503 while it comes back), until a round
    // has every request succeed and /readyz 200.
    let recovered: Round | undefined;
    let rounds = 0;
    while (!recovered && Date.now() - killed < patienceMs) {
      const r = await round();
      rounds++;
      if (r.readyz.status === 200 && r.answers.every(([, a]) => a.status < 300)) recovered = r;
      else await new Promise((done) => setTimeout(done, 250));
    }
    console.log(
      `[watchdog] ${stalledRounds} stalled round(s); killed ${killed - paused} ms after the pause; recovered after ${rounds} round(s), ${Date.now() - killed} ms after the kill: ${recovered ? summary(recovered) : 'not recovered'}`,
    );
    assert.ok(recovered, `requests succeed and /readyz is 200 within ${patienceMs / 1000} s of the kill`);
    assert.notEqual(engine.pid, stalledPid, 'a new server process runs');
    assert.ok(engine.process.restarts >= 1);
    assert.equal(engine.process.alive, true);
    assert.deepEqual(recovered.readyz.body.checks, { mongodb: 'up', temporal: 'up' });

    // /readyz keeps telling the truth: up now, and the data written before the stall is there.
    const readyAgain = await timed('GET', '/readyz', undefined, undefined);
    assert.equal(readyAgain.status, 200, JSON.stringify(readyAgain.body));
    const read = await admin.get(`/artifacts/${kept}`);
    assert.equal(read.status, 200, read.text);
    assert.equal(read.body.title, 'before the stall');
    assert.equal(read.body.content, 'written before the engine wedged');
    const listed = await admin.get(`/artifacts?collection_id=${workspace}&limit=100`);
    assert.equal(listed.status, 200, listed.text);
    assert.ok(
      (listed.body.items as { id: string }[]).some((a) => a.id === kept),
      `the workspace still lists the artifact written before the stall: ${JSON.stringify(listed.body).slice(0, 300)}`,
    );

    // Each step was logged: failed probes, the kill, the restart, the first answer after it. The
    // requests can recover before the watchdog's next probe (one period), which logs that answer.
    await eventually(
      async () => engineLog.some((l) => /answers again/.test(l.line)),
      patienceMs,
      'the watchdog logs the restarted engine answering its probe',
    ).catch(() => undefined);
    const lines = engineLog.map((l) => l.line);
    assert.ok(
      lines.some((l) => /watchdog: probe 1\/\d+ failed/.test(l)),
      lines.join('\n'),
    );
    assert.ok(
      lines.some((l) => /answered no probe .* killing it/.test(l)),
      lines.join('\n'),
    );
    assert.ok(
      lines.some((l) => /restarted \(pid/.test(l)),
      lines.join('\n'),
    );
    assert.ok(
      lines.some((l) => /answers again/.test(l)),
      lines.join('\n'),
    );
  });
});

describe('a Temporal dev server that stalls and is never resumed', () => {
  let temporal: Engines | undefined;
  after(async () => {
    await temporal?.stop();
  });

  it('is killed by its watchdog and restarted, and answers again with the workflows it had', async () => {
    const lines: string[] = [];
    const stateDir = mkdtempSync(join(process.env.TEST_STATE_DIR!, 'temporal-'));
    chmodSync(stateDir, 0o711);
    temporal = await startEngines({
      devDir: resolve(process.env.PLATFORM_DEV_DIR ?? '.dev'),
      stateDir,
      temporalPort: await freePort(),
      temporalUiPort: null,
      mongoPort: 0,
      startTemporal: true,
      startMongo: false,
      log: (line) => lines.push(line),
      ephemeral: true,
      watchdog: { temporalMs: watchdogMs },
    });
    const address = temporal.temporalAddress!;
    const server = temporal.temporalProcess!;
    const client = async <T>(work: (c: Client) => Promise<T>): Promise<T> => {
      const connection = await Connection.connect({ address, connectTimeout: 2000 });
      try {
        return await connection.withDeadline(Date.now() + 5000, () => work(new Client({ connection })));
      } finally {
        await connection.close();
      }
    };
    // A workflow the server holds (no worker: it stays running).
    const workflowId = `watchdog-${Date.now()}`;
    await client((c) => c.workflow.start('noWorkerForThis', { taskQueue: 'watchdog-nobody', workflowId }));
    const stalledPid = server.pid!;

    for (const pid of processTree(stalledPid)) process.kill(pid, 'SIGSTOP'); // never resumed
    const paused = Date.now();
    while (server.watchdogKills === 0 && Date.now() - paused < patienceMs) await new Promise((r) => setTimeout(r, 200));
    assert.ok(
      server.watchdogKills > 0,
      `the watchdog killed the stalled Temporal server within ${patienceMs / 1000} s:\n${lines.join('\n')}`,
    );

    const killed = Date.now();
    let status: string | undefined;
    while (!status && Date.now() - killed < patienceMs) {
      status = await client((c) => c.workflow.getHandle(workflowId).describe())
        .then((d) => d.status.name)
        .catch(() => undefined);
      if (!status) await new Promise((r) => setTimeout(r, 250));
    }
    console.log(
      `[watchdog] Temporal: killed ${killed - paused} ms after the pause; answers again ${Date.now() - killed} ms after the kill`,
    );
    assert.equal(status, 'RUNNING', `the restarted server answers and still has the workflow:\n${lines.join('\n')}`);
    assert.notEqual(server.pid, stalledPid);
    assert.ok(
      lines.some((l) => /Temporal dev server watchdog: alive .* killing it/.test(l)),
      lines.join('\n'),
    );
  });
});
