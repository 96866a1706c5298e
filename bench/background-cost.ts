// What the background work costs per second (issue #31, item 4), at rest and under a write load, on
// an empty store and on a seeded one (BG_ARTIFACTS, default 20,000; bench/seed, as real use leaves
// it). The API and its worker run in this process (bench/platform.ts) with the default embedder
// (MiniLM), so every statement the embedded store runs can be put down to who sent it:
//   search poll   SearchService.poll (each API replica, every SEARCH_SYNC_INTERVAL_MS)
//   sweeper       OutboxRelay.sweep (each worker, every EVENT_RELAY_SWEEP_MS)
//   <activity>    a Temporal activity (embedQueued, queueEmbeddings, recordWorkspaceEvents, ...)
//   requests      everything else: the REST handlers and what follows them in the API (fast paths)
// For each: statements per second and store time per second (each statement's wall time, pool wait
// included); and CPU per second of this process (API + worker + MiniLM), of PostgreSQL and of the
// Temporal dev server, from /proc.
//
//   node --import tsx bench/background-cost.ts            (BG_ARTIFACTS=20000 BG_REST_S=20 BG_LOAD_S=30 BG_CLIENTS=4)
//   BG_SIZES=0 ...                                         only the empty store
import { AsyncLocalStorage } from 'node:async_hooks';
import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { Context } from '@temporalio/activity';
import { OutboxRelay } from '../src/events/outbox-relay.js';
import type { Services } from '../src/operations/services.js';
import type { PgEngine } from '../src/store/postgres/engine.js';
import { call, type Client } from './mixed.js';
import { benchPlatform, type BenchPlatform } from './platform.js';
import { prepareAndSeed } from './seed/prepare.js';
import { body, rng, title } from './seed/text.js';

const sizes = (process.env.BG_SIZES ?? `0,${process.env.BG_ARTIFACTS ?? 20_000}`).split(',').map(Number);
const restSeconds = Number(process.env.BG_REST_S ?? 20);
const loadSeconds = Number(process.env.BG_LOAD_S ?? 30);
const drainSeconds = Number(process.env.BG_DRAIN_S ?? 30);
const clients = Number(process.env.BG_CLIENTS ?? 4);

// ---- attribution -------------------------------------------------------------------------------
const loop = new AsyncLocalStorage<string>();

function who(): string {
  try {
    return Context.current().info.activityType;
  } catch {
    return loop.getStore() ?? 'requests';
  }
}

interface Tally {
  statements: number;
  ms: number;
}
let tallies = new Map<string, Tally>();

function tally(label: string, ms: number): void {
  const t = tallies.get(label) ?? { statements: 0, ms: 0 };
  t.statements++;
  t.ms += ms;
  tallies.set(label, t);
}

/** The background work's statements (each text with the last values it ran with), EXPLAIN ANALYZEd after a phase: the engine's own time. */
const loopLabels = new Set([
  'search poll',
  'sweeper',
  'embedQueued',
  'recordWorkspaceEvents',
  'dispatchWorkspaceEvents',
  'lastWorkspaceSeq',
]);
let sampled = new Map<string, { label: string; text: string; values: unknown[] }>();

/** Times every statement the engine runs (query, transaction, cursor) under the label of who sent it. */
function instrument(engine: PgEngine): void {
  engine.onStatement = (text, values) => {
    const label = who();
    if (loopLabels.has(label)) sampled.set(text, { label, text, values }); // the last values of each text
  };
  const query = engine.query.bind(engine);
  engine.query = (async (what: string, text: string, values?: unknown[]) => {
    const label = who();
    const started = performance.now();
    try {
      return await query(what, text, values);
    } finally {
      tally(label, performance.now() - started);
    }
  }) as PgEngine['query'];
  const transaction = engine.transaction.bind(engine);
  engine.transaction = (async (what: string, work: Parameters<PgEngine['transaction']>[1]) => {
    const label = who();
    const started = performance.now();
    try {
      return await transaction(what, work);
    } finally {
      tally(label, performance.now() - started);
    }
  }) as PgEngine['transaction'];
  const cursor = engine.cursor.bind(engine);
  engine.cursor = async function* (...args: Parameters<PgEngine['cursor']>) {
    const label = who();
    const started = performance.now();
    try {
      yield* cursor(...args);
    } finally {
      tally(label, performance.now() - started);
    }
  } as PgEngine['cursor'];
}

// The two timer loops, each run under its name (the sweeper's prototype: every OutboxRelay of the process).
const sweep = OutboxRelay.prototype.sweep;
OutboxRelay.prototype.sweep = function (this: OutboxRelay, now?: Date) {
  return loop.run('sweeper', () => sweep.call(this, now));
};
function tagPoll(services: Services): void {
  const poll = services.search.poll.bind(services.search);
  services.search.poll = () => loop.run('search poll', poll);
}

/** How long the API's search index took to build from the store at start (SearchService.start, in bootstrap). */
let searchStartMs = 0;
function timeSearchStart(services: Services): void {
  const start = services.search.start.bind(services.search);
  services.search.start = async () => {
    const t = performance.now();
    await start();
    searchStartMs = performance.now() - t;
  };
}

// ---- CPU from /proc ----------------------------------------------------------------------------
const ticksPerSecond = 100;

/** A process's parent and CPU ticks: its own, and its ended children's (a backend that exited still counts). */
function stat(pid: number): { ppid: number; comm: string; ticks: number } | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = text.lastIndexOf(')');
    const fields = text.slice(close + 2).split(' ');
    return {
      ppid: Number(fields[1]),
      comm: text.slice(text.indexOf('(') + 1, close),
      ticks: Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]),
    };
  } catch {
    return null;
  }
}

/** The CPU seconds (user + system) used so far by `root` and every process below it. */
function treeCpu(root: number | undefined): number {
  if (!root) return 0;
  const children = new Map<number, number[]>();
  const ticks = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    const s = stat(pid);
    if (!s) continue;
    ticks.set(pid, s.ticks);
    children.set(s.ppid, [...(children.get(s.ppid) ?? []), pid]);
  }
  let total = 0;
  const walk = (pid: number) => {
    total += ticks.get(pid) ?? 0;
    for (const child of children.get(pid) ?? []) walk(child);
  };
  walk(root);
  return total / ticksPerSecond;
}

/** The engines' root processes: PostgreSQL's postmaster and the Temporal dev server (as engines.ts names them). */
function engineRoots(engines: BenchPlatform['engines']): { store?: number; temporal?: number } {
  const e = engines as { storeProcess?: { pid?: number }; temporalProcess?: { pid?: number }; storePid?: number };
  return { store: e.storeProcess?.pid ?? e.storePid, temporal: e.temporalProcess?.pid };
}

/** CPU seconds used so far by PostgreSQL (the postmaster and its backends) and by the Temporal dev server. */
function engineCpu(engines: BenchPlatform['engines']): { postgres: number; temporal: number } {
  const roots = engineRoots(engines);
  return { postgres: treeCpu(roots.store), temporal: treeCpu(roots.temporal) };
}

// ---- phases ------------------------------------------------------------------------------------
interface PhaseResult {
  phase: string;
  seconds: number;
  cpu: { node: number; postgres: number; temporal: number };
  loops: Record<string, { perSecond: number; msPerSecond: number }>;
  requests?: { perSecond: number; p50: number; writes: number };
  backlog?: { before: number; after: number };
  /** The loops' statements run again under EXPLAIN ANALYZE: PostgreSQL's execution time of each, in ms. */
  engineMs?: { label: string; statement: string; ms: number }[];
}

async function measure(p: BenchPlatform, phase: string, seconds: number, during?: (until: number) => Promise<PhaseResult['requests']>) {
  const backlogCount = () => p.services.db.collection('embedding_backlog').countDocuments({});
  const before = await backlogCount();
  tallies = new Map();
  sampled = new Map();
  const cpu0 = process.cpuUsage();
  const engines0 = engineCpu(p.engines);
  const started = performance.now();
  const until = Date.now() + seconds * 1000;
  const requests = during ? await during(until) : (await sleep(seconds * 1000), undefined);
  const elapsed = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const engines1 = engineCpu(p.engines);
  const counted = tallies;
  const loops: PhaseResult['loops'] = {};
  for (const [label, t] of [...counted].sort((a, b) => b[1].ms - a[1].ms)) {
    loops[label] = { perSecond: t.statements / elapsed, msPerSecond: t.ms / elapsed };
  }
  const result: PhaseResult = {
    phase,
    seconds: elapsed,
    cpu: {
      node: (cpu.user + cpu.system) / 1e6 / elapsed,
      postgres: (engines1.postgres - engines0.postgres) / elapsed,
      temporal: (engines1.temporal - engines0.temporal) / elapsed,
    },
    loops,
    requests,
    backlog: { before, after: await backlogCount() },
    engineMs: await explainSampled(p),
  };
  return result;
}

async function explainSampled(p: BenchPlatform): Promise<PhaseResult['engineMs']> {
  const engine = (p.services.store as unknown as { engine: PgEngine }).engine;
  const out: NonNullable<PhaseResult['engineMs']> = [];
  for (const { label, text, values } of sampled.values()) {
    if (!/^\s*SELECT\b/i.test(text)) continue; // reads only: EXPLAIN ANALYZE runs the statement (a CTE's update too)
    const { rows } = await engine.query('explain', `EXPLAIN (ANALYZE, FORMAT JSON) ${text}`, values);
    const plan = (rows[0]!['QUERY PLAN'] as { 'Execution Time': number; Plan: { 'Node Type': string } }[])[0]!;
    out.push({ label, statement: text.replace(/\s+/g, ' ').slice(0, 90), ms: plan['Execution Time'] });
  }
  return out;
}

/** `clients` REST clients until `until`: create a draft, read it, retitle it, list the workspace's first page. */
function writeLoad(client: Client, workspace: string) {
  return async (until: number): Promise<PhaseResult['requests']> => {
    const latencies: number[] = [];
    let writes = 0;
    const timed = async (method: string, path: string, payload?: unknown) => {
      const t = performance.now();
      const r = await call(client, method, path, payload);
      latencies.push(performance.now() - t);
      if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.json)?.slice(0, 300)}`);
      return r.json;
    };
    await Promise.all(
      Array.from({ length: clients }, async (_, c) => {
        const random = rng(1000 + c);
        for (let i = 0; Date.now() < until; i++) {
          const t = title(random, i);
          const created = await timed('POST', '/artifacts', {
            title: t,
            content_type: 'text/markdown',
            content: body(random, 'text/markdown', t),
            collection_id: workspace,
          });
          await timed('GET', `/artifacts/${created.id}`);
          await timed('PATCH', `/artifacts/${created.id}`, { title: `${t} (edited)` });
          await timed('GET', `/artifacts?collection_id=${workspace}&limit=10`);
          writes += 2;
        }
      }),
    );
    latencies.sort((a, b) => a - b);
    const seconds = loadSeconds;
    return { perSecond: latencies.length / seconds, p50: latencies[Math.floor(latencies.length / 2)] ?? 0, writes };
  };
}

async function waitForBacklog(p: BenchPlatform, maxMs: number): Promise<void> {
  const end = Date.now() + maxMs;
  while (Date.now() < end && (await p.services.db.collection('embedding_backlog').countDocuments({})) > 0) await sleep(1000);
}

function print(size: number, r: PhaseResult): void {
  const cpu = `CPU/s: node ${r.cpu.node.toFixed(3)}, postgres ${r.cpu.postgres.toFixed(3)}, temporal ${r.cpu.temporal.toFixed(3)}`;
  const req = r.requests
    ? `; ${r.requests.perSecond.toFixed(1)} req/s, p50 ${r.requests.p50.toFixed(1)} ms, ${r.requests.writes} writes`
    : '';
  console.log(
    `\n[${size} artifacts] ${r.phase} (${r.seconds.toFixed(0)} s): ${cpu}${req}; backlog ${r.backlog!.before} -> ${r.backlog!.after}`,
  );
  const perWrite = r.requests?.writes ? r.requests.writes / r.seconds : 0;
  console.log(`  who                        statements/s   store ms/s${perWrite ? '   statements/write' : ''}`);
  for (const [label, l] of Object.entries(r.loops))
    console.log(
      `  ${label.padEnd(26)} ${l.perSecond.toFixed(2).padStart(12)} ${l.msPerSecond.toFixed(2).padStart(12)}${perWrite ? (l.perSecond / perWrite).toFixed(2).padStart(19) : ''}`,
    );
  for (const e of r.engineMs ?? []) console.log(`    engine time ${e.ms.toFixed(3)} ms  ${e.label}: ${e.statement}`);
}

async function run(size: number): Promise<PhaseResult[]> {
  let seeded: Awaited<ReturnType<typeof prepareAndSeed>> | undefined;
  const startedAt = performance.now();
  const p = await benchPlatform(
    `bench-background-${size}`,
    {},
    {
      seed: async (services) => {
        instrument((services.store as unknown as { engine: PgEngine }).engine);
        tagPoll(services);
        timeSearchStart(services);
        if (size > 0) seeded = await prepareAndSeed(services, { artifacts: size, log: (l) => console.log(`[bench] ${l}`) });
      },
    },
  );
  console.log(
    `[bench] platform with ${size} artifacts up in ${((performance.now() - startedAt) / 1000).toFixed(0)} s; its search index built from the store in ${(searchStartMs / 1000).toFixed(1)} s (once per API start)`,
  );
  try {
    const client: Client = { url: p.url, headers: p.headers };
    // The load writes where the data is: the seeded store's large workspace (what a workspace's own
    // background work, its events' dispatch, reads grows with it if anything does), else a new one.
    const workspace =
      seeded?.largeWorkspaceId ?? ((await call(client, 'POST', '/workspaces', { name: 'background load' })).json.id as string);
    await sleep(3000); // the start's own work settles
    const results: PhaseResult[] = [];
    results.push(await measure(p, 'at rest', restSeconds));
    results.push(await measure(p, 'under load', loadSeconds, writeLoad(client, workspace)));
    results.push(await measure(p, 'after load (embedding the backlog)', drainSeconds));
    await waitForBacklog(p, 10 * 60_000);
    await sleep(5000);
    results.push(await measure(p, 'at rest after load', restSeconds));
    for (const r of results) print(size, r);
    return results;
  } finally {
    await p.close();
  }
}

const all: Record<number, PhaseResult[]> = {};
for (const size of sizes) all[size] = await run(size);
console.log(`\nBACKGROUND_COST_JSON ${JSON.stringify(all)}`);
process.exit(0);
