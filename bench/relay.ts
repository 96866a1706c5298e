// The desktop host relay (issue #34) as users get it, against the same server run by the platform's
// own worker, in the same run. A tool call to a server on a host goes: the worker's activity records
// the call in the store and reads its result every 200 ms (src/relay/calls.ts); the relay's long poll
// looks for pending calls every 250 ms (src/operations/relay.ts); the relay (`node
// bin/platform-relay.mjs`, a process of its own, as a person runs it) runs it on its pooled sandboxed
// stdio session and posts the answer. The baseline: @modelcontextprotocol/server-everything from the
// operators' stdio catalog, run sandboxed by the worker itself.
//
// For each layout, `npm start` (API and worker as processes, bench/processes.ts) and lean (both in
// this process, bench/platform.ts):
//   1. `echo` through REST invoke, warm, sequential: p50/p99 over BENCH_RELAY_CALLS (200) calls each,
//      the two servers taken in turns;
//   2. throughput, 8 concurrent callers for BENCH_RELAY_SECONDS (20) s each, in turns of half that.
// Then, `npm start` layout only (the API is a process of its own there, so its CPU is its own):
//   3. what idle relays cost the platform: CPU of the API process and of the store (PostgreSQL, every
//      backend) over BENCH_RELAY_IDLE_S (30) s with no relay, with 20 idle relays long-polling, and with
//      20 idle relays after 20,000 relay_calls records of OTHER hosts were inserted, with the claims and
//      results of the 90% answered (through the store: only data). The 20 relays are 20 hosts with 20
//      credentials, each a long-poll loop in this process speaking the relay protocol over HTTP (hello,
//      then poll after poll): 20 relay processes would load two cores with themselves, and what is
//      measured is the API's side, which is the same. After the insert the store is left to settle
//      (autovacuum and autoanalyze of the new rows) and "no relay" is measured again, so the polls'
//      share is told apart from what the data costs by itself.
// And, lean layout only (the API on this process's store client): every statement idle polls send to
// the relay tables with those 20,000 other hosts' calls present, EXPLAINed: none may read a whole table.
// Goals (ratios against the same run, never timed assertions): relayed echo p50 ≤ worker-stdio p50 +
// 0.5 s; relayed throughput ≥ 0.5× worker stdio; idle-poll CPU with 20,000 other records ≤ 1.2× without.
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Services } from '../src/operations/services.js';
import type { PgStoreClient } from '../src/store/postgres/client.js';
import type { RelayCallDoc } from '../src/store/relay.js';
import { analyze, recordStatements, wholeTableReads } from '../test/helpers/query-plans.js';
import { relayStateDir, startRelay } from '../test/helpers/relay-process.js';
import { processTree } from '../temporal-dev/engines.js';
import { recordGoal, type GoalRow } from './goals.js';
import { interleaved, type LoadResult } from './load.js';
import { benchPlatform } from './platform.js';
import { processPlatform } from './processes.js';

const calls = Number(process.env.BENCH_RELAY_CALLS ?? 200);
const throughputSeconds = Number(process.env.BENCH_RELAY_SECONDS ?? 20);
const idleSeconds = Number(process.env.BENCH_RELAY_IDLE_S ?? 30);
const layouts = (process.env.BENCH_RELAY_LAYOUTS ?? 'npm-start,lean').split(',');
const callers = 8;
const idleRelays = 20;
const otherRecords = 20_000;
const row: GoalRow['row'] = 'relay';

const hostType = 'application/vnd.platform.host+json';
const mcpServerType = 'application/vnd.platform.mcp-server+json';
const policy = { commands: ['npx'], packages: ['@modelcontextprotocol/server-everything'], repositories: [], network: false };

interface Setup {
  layout: string;
  url: string;
  headers: Record<string, string>;
  services: Services;
  /** The store's schema (the database name). */
  schema: string;
  /** The API's process and the store's server (npm start layout): whose CPU an idle poll costs. */
  apiPid?: number;
  storePid?: number;
  close(): Promise<void>;
}

async function start(layout: string): Promise<Setup> {
  const settings = { ALLOW_STDIO_MCP_SERVERS: 'true' };
  if (layout === 'npm-start') {
    const p = await processPlatform('bench-relay-npm', settings);
    return {
      layout: 'npm start',
      url: p.url,
      headers: p.headers,
      services: p.services,
      schema: p.config.MONGODB_DB,
      apiPid: childRunning('src/main/api.ts'),
      storePid: p.engines.storeProcess?.pid,
      close: p.close,
    };
  }
  const b = await benchPlatform('bench-relay-lean', { ...settings, EMBEDDINGS_PROVIDER: 'hashing' });
  return { layout: 'lean', url: b.url, headers: b.headers, services: b.services, schema: b.config.MONGODB_DB, close: () => b.close() };
}

/** This process's child running `script` (bench/processes.ts spawns the API as `node --import tsx <script>`). */
function childRunning(script: string): number {
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const ppid = Number(/^PPid:\s+(\d+)/m.exec(readFileSync(`/proc/${name}/status`, 'utf8'))?.[1]);
      if (ppid === process.pid && readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').includes(script)) return Number(name);
    } catch {
      // gone meanwhile
    }
  }
  throw new Error(`no child process of the bench runs ${script}`);
}

/** CPU seconds (user + system, with ended children's) used so far by `root` and every process below it. */
function cpuSeconds(root: number): number {
  let ticks = 0;
  for (const pid of processTree(root)) {
    try {
      const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
      ticks += Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
    } catch {
      // gone meanwhile
    }
  }
  return ticks / 100;
}

async function json(setup: Setup, method: string, path: string, body?: unknown, headers = setup.headers) {
  const res = await fetch(`${setup.url}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(120_000),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text) as Record<string, any>;
}

/** A host artifact and a server credential bound to it, signed in: what one relay holds. */
async function hostWithCredential(setup: Setup, ws: string, name: string) {
  const host = (await json(setup, 'POST', '/artifacts', { title: name, content_type: hostType, content: '{}', collection_id: ws }))
    .id as string;
  const made = await json(setup, 'POST', '/server-credentials', {
    client_id: name,
    name: `relay on ${name}`,
    server_id: 'relay',
    host_id: host,
    scopes: ['artifact:read'],
    resource_filters: { workspaces: [ws], collections: [] },
  });
  return { host, clientId: made.client_id as string, secret: made.client_secret as string };
}

async function token(setup: Setup, clientId: string, secret: string): Promise<string> {
  const res = await fetch(`${setup.url}/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: secret }),
    signal: AbortSignal.timeout(30_000),
  });
  if (!res.ok) throw new Error(`token for ${clientId}: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

/** `echo` through REST invoke: true when the server's answer came back in the response. */
function echo(setup: Setup, server: string) {
  return async (i: number) => {
    const res = await fetch(`${setup.url}/artifacts/${server}/invoke`, {
      method: 'POST',
      headers: setup.headers,
      body: JSON.stringify({ name: 'echo', arguments: { message: `m${i}` }, wait_seconds: 60 }),
      signal: AbortSignal.timeout(90_000),
    });
    const body = (await res.json()) as { result?: { content?: { text?: string }[] } };
    return res.status === 200 && body.result?.content?.[0]?.text === `Echo: m${i}`;
  };
}

/** `callers` clients calling back to back for `seconds`. */
async function timed(seconds: number, send: (i: number) => Promise<boolean>): Promise<{ done: number; errors: number; seconds: number }> {
  const end = performance.now() + seconds * 1000;
  const started = performance.now();
  let next = 0;
  let errors = 0;
  let done = 0;
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (performance.now() < end) {
        if (!(await send(next++).catch(() => false))) errors++;
        done++;
      }
    }),
  );
  return { done, errors, seconds: (performance.now() - started) / 1000 };
}

/** Throughput of a and b, `rounds` turns each of seconds/rounds, so that the machine's other load weighs on both alike. */
async function throughputs(seconds: number, rounds: number, a: (i: number) => Promise<boolean>, b: (i: number) => Promise<boolean>) {
  const sums = [
    { done: 0, errors: 0, seconds: 0 },
    { done: 0, errors: 0, seconds: 0 },
  ];
  for (let r = 0; r < rounds; r++)
    for (const [k, send] of [a, b].entries()) {
      const t = await timed(seconds / rounds, send);
      sums[k]!.done += t.done;
      sums[k]!.errors += t.errors;
      sums[k]!.seconds += t.seconds;
    }
  return sums.map((s) => ({ ...s, perSecond: (s.done - s.errors) / s.seconds }));
}

/** 20 idle relays' hosts and credentials, each signed in and its session started (hello). */
async function idleRelaysOf(setup: Setup, ws: string) {
  const relays = [];
  for (let i = 0; i < idleRelays; i++) {
    const h = await hostWithCredential(setup, ws, `idle-${i}`);
    const headers = { authorization: `Bearer ${await token(setup, h.clientId, h.secret)}`, 'content-type': 'application/json' };
    const session = randomUUID();
    const hello = { session, version: 'bench', os: 'linux', arch: 'x64', sandbox: 'none' };
    await json(setup, 'POST', '/relay/hello', { ...hello, policy: { ...policy, commands: [], packages: [], folders: [] } }, headers);
    relays.push({ headers, session });
  }
  return relays;
}

/** Each relay polling back to back, as an idle relay does, until stopped. */
function pollLoops(setup: Setup, relays: Awaited<ReturnType<typeof idleRelaysOf>>) {
  const stop = new AbortController();
  let polls = 0;
  let errors = 0;
  const loops = relays.map(async ({ headers, session }) => {
    while (!stop.signal.aborted) {
      try {
        const res = await fetch(`${setup.url}/relay/poll`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ session, running: [], servers: [], errors: [] }),
          signal: AbortSignal.any([stop.signal, AbortSignal.timeout(60_000)]),
        });
        const body = (await res.json()) as { calls?: unknown[] };
        if (res.ok && body.calls?.length === 0) polls++;
        else errors++;
      } catch {
        if (!stop.signal.aborted) errors++;
      }
    }
  });
  return {
    counts: () => ({ polls, errors }),
    async stop() {
      stop.abort();
      await Promise.all(loops);
    },
  };
}

/** Other hosts' calls, as use leaves them: most taken and answered long ago (a claim and a result each), some pending for relays that are away. */
async function insertOtherCalls(services: Services): Promise<void> {
  const now = Date.now();
  for (let start = 0; start < otherRecords; start += 1000) {
    const docs: RelayCallDoc[] = Array.from({ length: 1000 }, (_, k) => {
      const i = start + k;
      // Within the week a relay's hello keeps of its host's records (older ones are forgotten).
      const created = new Date(now - (otherRecords - i) * 25_000);
      return {
        _id: `bench-wf-${i}/run/1#1`,
        lineage: `bench-wf-${i}/run/1`,
        attempt: 1,
        host_id: `other-host-${i % 1000}`,
        server_id: `other-server-${i % 1000}`,
        revision: 1,
        op: 'tools/call',
        params: { name: 'echo', arguments: { message: `old ${i}` } },
        secrets_owner: 'someone-else',
        timeout_ms: 60_000,
        created_at: created,
        deadline_at: new Date(i % 10 === 0 ? now + 3600_000 : created.getTime() + 600_000),
        pending: i % 10 === 0,
      };
    });
    await services.relay.calls.insertMany(docs, { ordered: false });
    // A call no longer pending was taken by its host's relay and answered: its claim and its result.
    const answered = docs.filter((d) => !d.pending);
    await services.relay.claims.insertMany(
      answered.map((d) => ({
        _id: d._id,
        host_id: d.host_id,
        session: `00000000-0000-4000-8000-${d.host_id.slice(-3).padStart(12, '0')}`,
        claimed_at: d.created_at,
      })),
      { ordered: false },
    );
    await services.relay.results.insertMany(
      answered.map((d) => ({ _id: d._id, host_id: d.host_id, outcome: 'result' as const, result: { content: [] }, at: d.created_at })),
      { ordered: false },
    );
  }
}

interface Idle {
  api: number;
  store: number;
  polls: number;
  errors: number;
}

/** CPU% (of one core) of the API and of the store over `idleSeconds`, nothing asked of the platform meanwhile. */
async function idleWindow(setup: Setup, counts?: () => { polls: number; errors: number }): Promise<Idle> {
  const before = { api: cpuSeconds(setup.apiPid!), store: cpuSeconds(setup.storePid!), ...(counts?.() ?? { polls: 0, errors: 0 }) };
  const t = performance.now();
  await sleep(idleSeconds * 1000);
  const s = (performance.now() - t) / 1000;
  const after = { api: cpuSeconds(setup.apiPid!), store: cpuSeconds(setup.storePid!), ...(counts?.() ?? { polls: 0, errors: 0 }) };
  return {
    api: ((after.api - before.api) / s) * 100,
    store: ((after.store - before.store) / s) * 100,
    polls: after.polls - before.polls,
    errors: after.errors - before.errors,
  };
}

/** The p50 and p99 of each stage of the relayed calls made since `since`: recorded → claimed by a poll, claimed → decided. */
async function relayStages(services: Services, server: string, since: Date) {
  const made = await services.relay.calls.find({ server_id: server, created_at: { $gte: since } }).toArray();
  const ids = made.map((c) => c._id);
  const claims = new Map((await services.relay.claims.find({ _id: { $in: ids } }).toArray()).map((c) => [c._id, c.claimed_at.getTime()]));
  const results = new Map((await services.relay.results.find({ _id: { $in: ids } }).toArray()).map((c) => [c._id, c.at.getTime()]));
  const taken = made.filter((c) => claims.has(c._id) && results.has(c._id));
  const quantiles = (xs: number[]) => {
    xs.sort((a, b) => a - b);
    const at = (q: number) => xs[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? NaN;
    return { p50: at(0.5), p99: at(0.99) };
  };
  return {
    pickup: quantiles(taken.map((c) => claims.get(c._id)! - c.created_at.getTime())),
    run: quantiles(taken.map((c) => results.get(c._id)! - claims.get(c._id)!)),
  };
}

/** An idle window with the relays long-polling (started a moment before it). */
async function polling(setup: Setup, relays: Awaited<ReturnType<typeof idleRelaysOf>>): Promise<Idle> {
  const loops = pollLoops(setup, relays);
  await sleep(3000);
  try {
    return await idleWindow(setup, loops.counts);
  } finally {
    await loops.stop();
  }
}

/** VACUUM (ANALYZE) of the relay tables, as autovacuum would do after the bulk insert. */
async function vacuumRelayTables(setup: Setup): Promise<void> {
  const { engine } = setup.services.store as PgStoreClient;
  const { rows } = await engine.query('tables', `SELECT tablename FROM pg_tables WHERE schemaname = $1 AND tablename LIKE 'relay%'`, [
    setup.schema,
  ]);
  for (const r of rows) await engine.query('vacuum', `VACUUM (ANALYZE) "${setup.schema}"."${String(r.tablename).replace(/"/g, '""')}"`);
}

/** Seconds until the store's CPU over 5 s is at most `percent` (at most 120 s). */
async function settle(setup: Setup, percent: number): Promise<number> {
  const started = performance.now();
  for (;;) {
    const before = cpuSeconds(setup.storePid!);
    await sleep(5000);
    const used = ((cpuSeconds(setup.storePid!) - before) / 5) * 100;
    const waited = Math.round((performance.now() - started) / 1000);
    if (used <= percent || waited >= 120) return waited;
  }
}

/**
 * Lean layout (the API in this process, on the bench's own store client): every statement the API sends
 * while 20 idle relays poll, with 20,000 other hosts' calls in the store, EXPLAINed against that data.
 * A statement on a relay table whose plan reads the whole table would make the idle poll's cost grow
 * with everyone's data; none should.
 */
async function idlePlans(setup: Setup, ws: string): Promise<void> {
  const relays = await idleRelaysOf(setup, ws);
  await insertOtherCalls(setup.services);
  await analyze(setup.services.store, setup.schema);
  const recorder = recordStatements(setup.services.store);
  const loops = pollLoops(setup, relays);
  // Past one whole long poll (20 s) and into the next: hello's aftermath, each 250 ms look, the 5 s heartbeat, the next poll's start.
  await sleep(25_000);
  await loops.stop();
  const statements = recorder.stop().filter((st) => /relay_/.test(st.text));
  const whole = (await wholeTableReads(setup.services.store, setup.schema, statements)).filter((w) => w.relation.startsWith('relay_'));
  console.log(
    `\nidle polls' statements on the relay tables (${setup.layout}), EXPLAINed with 20,000 other hosts' calls: ${statements.length} distinct`,
  );
  for (const w of whole) console.log(`  reads all ${w.rows} rows of ${w.relation}: ${w.text.slice(0, 200)}`);
  recordGoal({
    row,
    what: `idle relay polls' statements reading a whole relay table, 20,000 other hosts' calls (${setup.layout})`,
    measured: `${whole.length} of ${statements.length}`,
    goal: "none (cost grows with the request, never with everyone's data)",
    met: whole.length === 0 && statements.length > 0 && loops.counts().errors === 0,
  });
}

const ms = (v: number) => `${v.toFixed(0)} ms`;
const line = (name: string, r: LoadResult) =>
  `${name.padEnd(34)} | ${r.p50.toFixed(1).padStart(7)} ${r.p99.toFixed(1).padStart(7)} | ${String(r.errors).padStart(6)}`;

async function measure(layout: string): Promise<void> {
  const setup = await start(layout);
  let relay: ReturnType<typeof startRelay> | undefined;
  try {
    console.log(`\n== ${setup.layout} ==`);
    const ws = (await json(setup, 'POST', '/workspaces', { name: 'bench relay' })).id as string;
    const laptop = await hostWithCredential(setup, ws, 'laptop');
    relay = startRelay({ url: setup.url, clientId: laptop.clientId, secret: laptop.secret, policy, stateDir: relayStateDir() });
    await relay.waitFor(/connected as host "laptop"/);
    const register = async (title: string, transport: Record<string, unknown>) =>
      (
        await json(setup, 'POST', '/artifacts', {
          title,
          content_type: mcpServerType,
          content: JSON.stringify({ transport }),
          collection_id: ws,
        })
      ).id as string;
    const relayed = await register('everything on the laptop', {
      type: 'stdio',
      command: 'npx',
      args: ['--no-install', '@modelcontextprotocol/server-everything', 'stdio'],
      host_id: laptop.host,
    });
    const local = await register('everything on the worker', { type: 'stdio', catalog_entry: 'server-everything' });
    const viaRelay = echo(setup, relayed);
    const viaWorker = echo(setup, local);
    // Warm: each server's first call starts its pooled session (the relay's sandbox, the worker's).
    for (const send of [viaRelay, viaWorker]) {
      let ok = 0;
      for (let i = 0; ok < 10; i++) {
        if (i >= 40) throw new Error('the servers did not answer echo while warming up');
        if (await send(i)) ok++;
      }
    }
    const since = new Date();
    const [r, w] = await interleaved(calls, 1, 4, viaRelay, viaWorker);
    const stages = await relayStages(setup.services, relayed, since);
    console.log(`\necho through POST /artifacts/{id}/invoke, ${calls} sequential calls each, warm\n`);
    console.log(`${'server'.padEnd(34)} |  p50 ms  p99 ms | errors`);
    console.log(line('worker stdio (catalog, baseline)', w));
    console.log(line('on a host, through its relay', r));
    console.log(
      `\nwhere a relayed call's time goes (from the store's records): recorded → taken by the poll p50 ${ms(stages.pickup.p50)} ` +
        `(p99 ${ms(stages.pickup.p99)}), taken → answered by the relay p50 ${ms(stages.run.p50)} (p99 ${ms(stages.run.p99)}); ` +
        `the rest of the ${ms(r.p50)} p50 is the invoke, the workflow and the activity's result poll`,
    );
    const [rt, wt] = await throughputs(throughputSeconds, 2, viaRelay, viaWorker);
    console.log(`\n${callers} concurrent callers, ${throughputSeconds} s each\n`);
    console.log(`worker stdio: ${wt!.perSecond.toFixed(1)} calls/s (${wt!.errors} errors)`);
    console.log(`relay:        ${rt!.perSecond.toFixed(1)} calls/s (${rt!.errors} errors)`);
    recordGoal({
      row,
      what: `relayed echo p50, REST invoke (${setup.layout})`,
      measured: `${ms(r.p50)} (p99 ${ms(r.p99)}, ${r.errors} errors)`,
      baseline: `worker stdio p50 ${ms(w.p50)} (p99 ${ms(w.p99)})`,
      ratio: r.p50 / w.p50,
      goal: '≤ worker stdio p50 + 500 ms',
      met: r.errors === 0 && r.p50 <= w.p50 + 500,
    });
    recordGoal({
      row,
      what: `relayed echo throughput, ${callers} callers (${setup.layout})`,
      measured: `${rt!.perSecond.toFixed(1)}/s (${rt!.errors} errors)`,
      baseline: `worker stdio ${wt!.perSecond.toFixed(1)}/s`,
      ratio: rt!.perSecond / wt!.perSecond,
      goal: '≥ 0.5× worker stdio',
      met: rt!.errors === 0 && rt!.perSecond >= 0.5 * wt!.perSecond,
    });
    await relay.kill();
    relay = undefined;
    if (setup.apiPid === undefined || setup.storePid === undefined) return await idlePlans(setup, ws);

    // What idle relays cost: no relay, 20 relays, 20 relays with 20,000 other hosts' calls in the store.
    const relays = await idleRelaysOf(setup, ws);
    await sleep(5000);
    const none = await idleWindow(setup);
    const twenty = await polling(setup, relays);
    await insertOtherCalls(setup.services);
    const stored = await setup.services.relay.calls.countDocuments({});
    // The bulk insert's aftermath (PostgreSQL's autovacuum and autoanalyze of the new rows) is not the polls' cost: done now, then let it pass.
    await vacuumRelayTables(setup);
    const settled = await settle(setup, none.store + 1);
    const noneWithData = await idleWindow(setup);
    const withData = await polling(setup, relays);
    const fmt = (name: string, x: Idle) =>
      `${name.padEnd(44)} | ${x.api.toFixed(1).padStart(6)} ${x.store.toFixed(1).padStart(7)} ${(x.api + x.store).toFixed(1).padStart(6)} | ${String(x.polls).padStart(5)} ${String(x.errors).padStart(6)}`;
    console.log(`\nidle, ${idleSeconds} s each: CPU % of one core (API process; store: PostgreSQL and its backends)\n`);
    console.log(`${'relays connected'.padEnd(44)} |    API   store    sum | polls errors`);
    console.log(fmt('none', none));
    console.log(fmt(`${idleRelays} (long-poll loops)`, twenty));
    console.log(`(${stored} relay_calls in the store now, all but the bench's of other hosts; the store settled in ${settled} s)`);
    console.log(fmt('none', noneWithData));
    console.log(fmt(`${idleRelays} (long-poll loops)`, withData));
    const sum = (x: Idle) => x.api + x.store;
    const share = (x: Idle, base: Idle) => sum(x) - sum(base);
    console.log(
      `\nwhat the ${idleRelays} idle relays cost (over none): ${share(twenty, none).toFixed(1)} % of a core without the other records, ${share(withData, noneWithData).toFixed(1)} % with them`,
    );
    const ratio = sum(withData) / sum(twenty);
    recordGoal({
      row,
      what: `API + store CPU, ${idleRelays} idle relays, ${stored} relay_calls mostly of other hosts (${setup.layout})`,
      measured: `${sum(withData).toFixed(1)} % of a core (API ${withData.api.toFixed(1)}, store ${withData.store.toFixed(1)}; over no relay ${share(withData, noneWithData).toFixed(1)})`,
      baseline: `without them ${sum(twenty).toFixed(1)} % (over no relay ${share(twenty, none).toFixed(1)})`,
      ratio,
      goal: '≤ 1.2× without the other records',
      met: withData.errors === 0 && ratio <= 1.2,
    });
  } finally {
    await relay?.kill();
    await setup.close();
  }
}

async function main(): Promise<void> {
  for (const layout of layouts) await measure(layout);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
