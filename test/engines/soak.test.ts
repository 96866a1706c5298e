// Soak (issue 17, "Done when"; issue #31: on a store that holds data): the store is first seeded with
// SOAK_ARTIFACTS (20,000) artifacts in 200 workspaces, with their revisions, events and vectors as real
// use leaves them (bench/seed), then a mixed load through the REST API, 16 concurrent clients for 60 s
// (create, get, patch, search, invoke), then the whole stack restarted (engine, API, worker) on the
// same data with the indexing backlog the load left. Every request must be answered, with no 5xx and
// no timeout; sign-in answers within 2 s after the load and after the restart. Throughput and
// p50/p99 per operation are printed. Bounded in time (LOAD_MS) and in count (MAX_PER_CLIENT).
// The engine is this file's own, so the load slows no other test file and the restart stops only it.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { agentId } from '../../src/invocations/agents/registry.js';
import { freePort } from '../../temporal-dev/engines.js';
import { seedStore } from '../../bench/seed/seed.js';
import { hashPassword } from '../../src/identity/passwords.js';
import { createEmbedder } from '../../src/search/embedder.js';
import { ensureIndexes, createStoreClient } from '../../src/store/mongo.js';
import { EventStore } from '../../src/store/events.js';
import { outbox } from '../../src/store/revisions.js';
import { UserStore } from '../../src/store/users.js';
import { adminEmail, adminPassword, testConfig } from '../helpers/platform.js';
import type { Config } from '../../src/kernel/config/env.js';
import { untilReady } from '../helpers/processes.js';
import { startPrivateEngine, type PrivateEngine } from '../helpers/private-engine.js';

const CLIENTS = 16;
const LOAD_MS = 60_000;
const AFTER_RESTART_MS = 15_000;
const MAX_PER_CLIENT = 3000;
/** A request not answered in this long counts as a timeout (a hang, for this test). */
const REQUEST_TIMEOUT_MS = 30_000;
const SIGN_IN_BOUND_MS = 2000;
const USERS = 4;
/** Artifacts in the store before the load (issue #31: the soak runs on a store seeded with at least 20,000). */
const SOAK_ARTIFACTS = Number(process.env.SOAK_ARTIFACTS ?? 20_000);

const tagAgent = agentId('tag-keywords');

/** The platform as `npm start` runs it: the API and the worker, each its own process; close() keeps the data. */
interface Stack {
  url: string;
  /** What both processes logged. */
  logs: string[];
  startedInMs: number;
  close(): Promise<void>;
}

/** Starts a production entry point with the test config as its environment; resolves once it logs `ready`. */
async function entryPoint(script: string, env: Record<string, string>, ready: string, logs: string[]): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  // A start rebuilds the search index from the seeded store (20,000 artifacts and their vectors): its
  // time is printed, not asserted; the bound only turns a hang into a failure.
  await untilReady(child, ready, script, { timeoutMs: 240_000, onOutput: (chunk) => logs.push(chunk) });
  return child;
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  await exited;
  clearTimeout(timer);
}

async function startStack(env: Record<string, string>): Promise<Stack> {
  const started = Date.now();
  const logs: string[] = [];
  const api = await entryPoint('src/main/api.ts', env, '"API listening"', logs);
  let worker: ChildProcess;
  try {
    worker = await entryPoint('src/main/worker.ts', env, '"worker running"', logs);
  } catch (err) {
    await stopChild(api);
    throw err;
  }
  return {
    url: `http://127.0.0.1:${env.PORT}`,
    logs,
    startedInMs: Date.now() - started,
    close: () => Promise.all([stopChild(worker), stopChild(api)]).then(() => undefined),
  };
}

/** Revisions still waiting for their embedding (the embedding backlog, issue #23): what the load left. */
async function indexingBacklog(config: Config): Promise<number | string> {
  const client = createStoreClient(engine.uri, 5000);
  try {
    return await client.db(config.MONGODB_DB).collection('embedding_backlog').countDocuments({}, { maxTimeMS: 5000 });
  } catch (err) {
    return `unknown (${(err as Error).message})`;
  } finally {
    await client.close();
  }
}

interface Answer {
  status: number;
  ms: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

class Recorder {
  readonly latencies = new Map<string, number[]>();
  readonly statuses = new Map<string, Map<string, number>>();
  readonly failures: string[] = [];

  constructor(private readonly url: () => string) {}

  /** One request; never throws: a network error or a timeout is recorded as status "timeout" / "error". */
  async send(op: string, method: string, path: string, token: string | undefined, body?: unknown): Promise<Answer> {
    const started = Date.now();
    let status: number | string;
    let parsed: unknown;
    try {
      const headers: Record<string, string> = {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      };
      const res = await fetch(this.url() + path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      const text = await res.text();
      status = res.status;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parsed = text;
      }
      if (res.status >= 500) this.failures.push(`${op}: ${res.status} ${text.slice(0, 300)}`);
    } catch (err) {
      status = (err as Error).name === 'TimeoutError' ? 'timeout' : 'error';
      this.failures.push(`${op}: ${status} (${(err as Error).message})`);
    }
    const ms = Date.now() - started;
    if (!this.latencies.has(op)) this.latencies.set(op, []);
    this.latencies.get(op)!.push(ms);
    const byStatus = this.statuses.get(op) ?? new Map<string, number>();
    byStatus.set(String(status), (byStatus.get(String(status)) ?? 0) + 1);
    this.statuses.set(op, byStatus);
    return { status: typeof status === 'number' ? status : 0, ms, body: parsed };
  }

  get total(): number {
    return [...this.latencies.values()].reduce((n, l) => n + l.length, 0);
  }

  report(title: string, seconds: number): string {
    const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
    const rows = [...this.latencies.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([op, l]) => {
        const sorted = [...l].sort((a, b) => a - b);
        const statuses = [...this.statuses.get(op)!.entries()].map(([s, n]) => `${s}×${n}`).join(' ');
        return `  ${op.padEnd(10)} ${String(l.length).padStart(6)} req ${(l.length / seconds).toFixed(1).padStart(7)}/s  p50 ${String(pct(sorted, 50)).padStart(5)} ms  p99 ${String(pct(sorted, 99)).padStart(5)} ms  max ${String(sorted.at(-1)).padStart(5)} ms  [${statuses}]`;
      });
    return `[soak] ${title}: ${this.total} requests in ${seconds.toFixed(1)} s, ${(this.total / seconds).toFixed(1)} req/s\n${rows.join('\n')}`;
  }

  /** Statuses other than the ones each operation is expected to answer. */
  unexpected(expected: Record<string, number[]>): string[] {
    const out: string[] = [];
    for (const [op, byStatus] of this.statuses)
      for (const [status, n] of byStatus) if (!(expected[op] ?? []).includes(Number(status))) out.push(`${op} ${status}×${n}`);
    return out;
  }
}

const expected: Record<string, number[]> = {
  create: [201],
  get: [200],
  patch: [200],
  search: [200],
  invoke: [200, 202],
  discard: [200],
  list: [200],
  'sign-in': [200],
};

const words = [
  'budget',
  'travel',
  'hardware',
  'team',
  'hiring',
  'roadmap',
  'quarter',
  'revenue',
  'design',
  'review',
  'storage',
  'engine',
  'latency',
  'release',
  'customer',
  'support',
];
const sentence = (rng: () => number, n: number) => Array.from({ length: n }, () => words[Math.floor(rng() * words.length)]).join(' ');

let engine: PrivateEngine;
let stack: Stack | undefined;
let config: Config;

/** The environment both entry points run with: the test's config, this file's engine, no per-principal rate limit. */
const stackEnv = (): Record<string, string> => ({
  PLATFORM_ENV: 'development',
  HOST: '127.0.0.1',
  PORT: String(config.PORT),
  LOG_LEVEL: 'info', // the entry points say they are ready at info
  STORE_URI: engine.uri,
  MONGODB_DB: config.MONGODB_DB,
  TEMPORAL_ADDRESS: config.temporalAddress,
  TEMPORAL_TASK_QUEUE: config.TEMPORAL_TASK_QUEUE,
  TEMPORAL_WORKFLOW_BUNDLE: process.env.TEST_WORKFLOW_BUNDLE!,
  PLATFORM_DEV_DIR: config.PLATFORM_DEV_DIR,
  PLATFORM_ADMIN_EMAIL: adminEmail,
  PLATFORM_ADMIN_PASSWORD: adminPassword,
  EMBEDDINGS_MODEL_DIR: config.EMBEDDINGS_MODEL_DIR!,
  STDIO_CATALOG_PATHS: config.STDIO_CATALOG_PATHS,
  RATE_LIMIT_PER_MINUTE: '0',
});

/**
 * The store as a platform in use leaves it, before the platform starts: the indexes its first start
 * makes, the administrator, then the seeded people, workspaces, artifacts, revisions, events and vectors
 * (of the embedder the stack runs, so none is stale).
 */
async function seed(): Promise<void> {
  const client = createStoreClient(engine.uri, 60_000);
  try {
    const db = client.db(config.MONGODB_DB);
    await ensureIndexes(db);
    await Promise.all([outbox.ensureIndex(db), new EventStore(db).ensureIndexes()]);
    const admin = await new UserStore(db).create(adminEmail, await hashPassword(adminPassword), true);
    const embedder = await createEmbedder(testConfig({ ...stackEnv(), EMBEDDINGS_THREADS: '2' }));
    const seeded = await seedStore(db, admin._id, { artifacts: SOAK_ARTIFACTS, workspaces: 200, embedder });
    console.log(
      `[soak] seeded ${seeded.counts.artifacts} artifacts in ${seeded.counts.workspaces} workspaces (${seeded.counts.revisions} revisions, ${seeded.counts.events} events) in ${seeded.seconds.toFixed(1)} s`,
    );
  } finally {
    await client.close();
  }
}

before(async () => {
  engine = await startPrivateEngine();
  config = testConfig({ PORT: String(await freePort()) });
  await seed();
  stack = await startStack(stackEnv());
});

after(async () => {
  await stack?.close();
  await engine?.stop();
});

async function signIn(rec: Recorder, email: string, password: string): Promise<{ token: string; ms: number }> {
  const r = await rec.send('sign-in', 'POST', '/auth/login', undefined, { email, password });
  assert.equal(r.status, 200, `sign-in: ${JSON.stringify(r.body)}`);
  return { token: r.body.access_token, ms: r.ms };
}

describe('soak: mixed REST load, then a restart with the backlog', () => {
  it(`${CLIENTS} clients for ${LOAD_MS / 1000} s: every request answered, no 5xx, no timeout; sign-in within 2 s after the load and after the restart`, async () => {
    const url = () => stack!.url;
    const setup = new Recorder(url);
    const { token: adminToken } = await signIn(setup, adminEmail, adminPassword);
    const people: { token: string; workspace: string }[] = [];
    for (let u = 0; u < USERS; u++) {
      const email = `soak-${u}-${randomBytes(3).toString('hex')}@example.test`;
      const password = randomBytes(12).toString('hex');
      assert.equal((await setup.send('setup', 'POST', '/users', adminToken, { email, password })).status, 201);
      const { token } = await signIn(setup, email, password);
      const ws = await setup.send('setup', 'POST', '/workspaces', token, { name: `soak ${u}` });
      assert.equal(ws.status, 201, JSON.stringify(ws.body));
      people.push({ token, workspace: ws.body.id });
    }

    // --- the load ---
    const load = new Recorder(url);
    const loadStarted = Date.now();
    const createdBy: string[][] = Array.from({ length: CLIENTS }, () => []);
    const client = async (c: number) => {
      let seed = c + 1;
      const rng = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
      const me = people[c % USERS]!;
      const mine = createdBy[c]!;
      for (let n = 0; n < MAX_PER_CLIENT && Date.now() - loadStarted < LOAD_MS; n++) {
        const pick = mine.length < 3 ? 0 : rng();
        if (pick < 0.25) {
          const r = await load.send('create', 'POST', '/artifacts', me.token, {
            title: `c${c} n${n} ${sentence(rng, 2)}`,
            content_type: 'text/markdown',
            content: `# Note ${n}\n\n${sentence(rng, 40)}`,
            collection_id: me.workspace,
          });
          if (r.status === 201) mine.push(r.body.id);
        } else if (pick < 0.5) {
          await load.send('get', 'GET', `/artifacts/${mine[Math.floor(rng() * mine.length)]}`, me.token);
        } else if (pick < 0.7) {
          await load.send('patch', 'PATCH', `/artifacts/${mine[Math.floor(rng() * mine.length)]}`, me.token, {
            content: `# Edited ${n}\n\n${sentence(rng, 30)}`,
          });
        } else if (pick < 0.9) {
          await load.send('search', 'POST', '/artifacts/search', me.token, { query: sentence(rng, 2) });
        } else if (pick < 0.95) {
          await load.send('list', 'GET', `/artifacts?collection_id=${me.workspace}&limit=20`, me.token);
        } else {
          const target = mine[Math.floor(rng() * mine.length)]!;
          const r = await load.send('invoke', 'POST', `/artifacts/${tagAgent}/invoke`, me.token, {
            artifact_ids: [target],
            params: { rules: { finance: ['budget', 'revenue'], people: ['team', 'hiring'] } },
          });
          if (r.status === 200 && r.body?.status === 'awaiting_decision')
            await load.send('discard', 'POST', `/invocations/${r.body.invocation_id}/discard`, me.token);
        }
      }
    };
    await Promise.all(Array.from({ length: CLIENTS }, (_, c) => client(c)));
    const loadSeconds = (Date.now() - loadStarted) / 1000;
    console.log(load.report(`load, ${CLIENTS} clients`, loadSeconds));

    const afterLoad = await signIn(load, adminEmail, adminPassword);
    const created = createdBy.flat();
    const backlog = await indexingBacklog(config);
    const slowBefore = stack!.logs.join('').split('slow storage call').length - 1;
    console.log(
      `[soak] sign-in after the load: ${afterLoad.ms} ms; ${created.length} artifacts created, ${backlog} revisions waiting for their embedding (the backlog); ${slowBefore} storage calls over half the deadline`,
    );

    // --- restart: API, worker and engine, on the same data ---
    const stopStarted = Date.now();
    await stack!.close();
    stack = undefined;
    await engine.stop();
    const stoppedMs = Date.now() - stopStarted;
    const restartStarted = Date.now();
    engine = await startPrivateEngine(engine.stateDir);
    stack = await startStack(stackEnv());
    console.log(
      `[soak] restart: stopped in ${stoppedMs} ms; engine, API and worker up again in ${Date.now() - restartStarted} ms (API and worker ${stack.startedInMs} ms, search index rebuilt at start)`,
    );

    const after = new Recorder(url);
    const afterRestart = await signIn(after, adminEmail, adminPassword);
    console.log(`[soak] sign-in after the restart: ${afterRestart.ms} ms`);

    // Reads and searches while the backlog drains: every artifact the load created is there.
    const checkStarted = Date.now();
    const readers = Array.from({ length: CLIENTS }, async (_, c) => {
      const me = people[c % USERS]!;
      const mine = createdBy[c]!;
      for (let i = 0; Date.now() - checkStarted < AFTER_RESTART_MS && i < MAX_PER_CLIENT; i++) {
        if (i < mine.length) {
          const r = await after.send('get', 'GET', `/artifacts/${mine[i]}`, me.token);
          assert.equal(r.status, 200, `artifact ${mine[i]} readable after the restart`);
        } else await after.send('search', 'POST', '/artifacts/search', me.token, { query: sentence(Math.random, 2) });
      }
    });
    await Promise.all(readers);
    const lastSignIn = await signIn(after, adminEmail, adminPassword);
    const backlogAfter = await indexingBacklog(config);
    console.log(after.report('after the restart', (Date.now() - checkStarted) / 1000));
    console.log(
      `[soak] sign-in at the end: ${lastSignIn.ms} ms; ${backlogAfter} revisions waiting for their embedding; ${stack.logs.join('').split('slow storage call').length - 1} storage calls over half the deadline since the restart`,
    );

    for (const rec of [load, after]) {
      assert.deepEqual(rec.failures.slice(0, 10), [], 'every request answered, no 5xx, no timeout');
      assert.deepEqual(rec.unexpected(expected), [], 'each operation answered as expected');
    }
    for (const op of ['create', 'get', 'patch', 'search', 'invoke'])
      assert.ok((load.latencies.get(op)?.length ?? 0) > 0, `the load covered ${op}`);
    assert.ok(afterLoad.ms < SIGN_IN_BOUND_MS, `sign-in after the load took ${afterLoad.ms} ms`);
    assert.ok(afterRestart.ms < SIGN_IN_BOUND_MS, `sign-in after the restart took ${afterRestart.ms} ms`);
    assert.ok(lastSignIn.ms < SIGN_IN_BOUND_MS, `sign-in at the end took ${lastSignIn.ms} ms`);
  });
});
