// Issue #31's goals table: the platform as users get it, empty and holding BENCH_SCALE_ARTIFACTS
// artifacts (default 100,000 in 1,000 workspaces, one of them with a fifth: 20,000), in the `npm start`
// layout (worker and API as processes of their own, the MiniLM embedder: bench/processes.ts) and the
// lean one the other benches use (one process, hashing embedder: bench/platform.ts). The store is
// seeded as real use leaves it (bench/seed/seed.ts) before the platform starts, so its search index
// is built from it as at a restart.
//
// Each platform is measured the same way: one client's p50 (and p99) of the reads of the table, a
// commit preview of 100 drafts, task-agent invocations in apply mode; REST creates by 16 clients next
// to the raw Koa + driver baseline on the same engines; then a 16-client mixed load (create, get,
// patch, search, invoke) with its p99, 5xx and storage-deadline counts. The empty and the seeded
// platform of a layout run side by side and take the light measurements in turns (the machine's other
// work weighs on both alike); the heavy ones run one platform at a time. Rows are recorded for
// bench/summary.ts with the empty platform of the same layout, measured in the same run, as baseline.
//
// BENCH_SCALE_ARTIFACTS (100000; 5000 for a quick run), BENCH_SCALE_LAYOUTS (npm-start,lean),
// BENCH_SCALE_REPS (60 per read), BENCH_SCALE_PREVIEWS (5), BENCH_SCALE_INVOCATIONS (40),
// BENCH_SCALE_CREATES (800), BENCH_SCALE_MIXED_SECONDS (60).
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import type { Db } from 'mongodb';
import { agentId } from '../src/invocations/agents/registry.js';
import { recordGoal } from './goals.js';
import { load, type LoadResult } from './load.js';
import { call, createMany, mixedLoad, must, percentile, settled, storageDeadlines, type Client, type MixedResult } from './mixed.js';
import { layoutName, startPlatform, type Layout, type Platform } from './scale-platform.js';
import type { SeedResult } from './seed/seed.js';
import { query, rng } from './seed/text.js';

const size = Number(process.env.BENCH_SCALE_ARTIFACTS ?? 100_000);
const layouts = (process.env.BENCH_SCALE_LAYOUTS ?? 'npm-start,lean').split(',').map((s) => s.trim()) as Layout[];
const reps = Number(process.env.BENCH_SCALE_REPS ?? 60);
const previews = Number(process.env.BENCH_SCALE_PREVIEWS ?? 5);
const invocations = Number(process.env.BENCH_SCALE_INVOCATIONS ?? 40);
const creates = Number(process.env.BENCH_SCALE_CREATES ?? 800);
const mixedSeconds = Number(process.env.BENCH_SCALE_MIXED_SECONDS ?? 60);
/** The large workspace: a fifth of the store, and at least 100 pages of 10. */
const large = Math.min(size, Math.max(Math.round(size / 5), 1010));

interface Stat {
  n: number;
  p50: number;
  p99: number;
  errors: number;
}

const stat = (latencies: number[], errors: number): Stat => {
  const s = [...latencies].sort((a, b) => a - b);
  return { n: s.length, p50: percentile(s, 0.5), p99: percentile(s, 0.99), errors };
};

interface Figures {
  layout: Layout;
  artifacts: number;
  startSeconds: number;
  searchIndex: Platform['searchIndex'];
  seedSeconds?: number;
  seedCounts?: SeedResult['counts'];
  vectors?: string;
  reads: Record<string, Stat>;
  preview: Stat;
  invoke: Stat;
  create: LoadResult;
  createBaseline: LoadResult;
  mixed: MixedResult;
  mixedDeadlines: number;
  settledAfterMixed: boolean;
  /** The machine's 1-minute load average when the measurements began and ended (2 cores: above 2, others compete). */
  load: [number, number];
  /** Differences between a seeded document's fields and the platform's own (REST-made) one, if any. */
  shape?: string[];
}

/** A document's field paths with their types, for comparing what the seeder and the platform write. */
function shapeOf(doc: unknown, prefix = ''): string[] {
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc) || doc instanceof Date || (doc as { _bsontype?: string })._bsontype)
    return [
      `${prefix}:${doc === null ? 'null' : Array.isArray(doc) ? 'array' : doc instanceof Date ? 'date' : ((doc as { _bsontype?: string })._bsontype ?? typeof doc)}`,
    ];
  return Object.entries(doc).flatMap(([k, v]) => shapeOf(v, prefix ? `${prefix}.${k}` : k));
}

async function shapeDifferences(db: Db, seeded: string, made: string): Promise<string[]> {
  const out: string[] = [];
  const pair = async (what: string, coll: string, filter: (id: string) => object) => {
    const [a, b] = await Promise.all([db.collection(coll).findOne(filter(seeded)), db.collection(coll).findOne(filter(made))]);
    if (!a || !b) return out.push(`${what}: ${!a ? 'no seeded one' : 'no platform one'}`);
    const sa = new Set(shapeOf(a));
    const sb = new Set(shapeOf(b));
    for (const k of sb) if (!sa.has(k)) out.push(`${what}: the platform writes ${k}, the seeder does not`);
    for (const k of sa) if (!sb.has(k)) out.push(`${what}: the seeder writes ${k}, the platform does not`);
  };
  await pair('artifact', 'artifacts', (id) => ({ _id: id }));
  await pair('revision claim', 'artifact_revisions', (id) => ({ _id: `${id}:0000000001` }));
  await pair('event', 'events', (id) => ({ artifact_id: id, workspace_id: { $exists: true } }));
  return out;
}

/**
 * One platform's measurements, in phases: the light ones (reads, previews, invocations) are taken in
 * turns with the other platform of the same layout (empty and seeded), so that the machine's other work
 * (two shared cores) weighs on both alike; the heavy ones (creates, the mixed load) one platform at a
 * time, as each leaves its worker work that would weigh on the other.
 */
class Measured {
  private readonly c: Client;
  private readonly loads: number[] = [];
  private emptyWs = '';
  private smallWs = '';
  private draftsWs = '';
  private mixedWs = '';
  private collection = '';
  private listed = '';
  private ids: string[] = [];
  private queries: string[] = [];
  private page100: string | null = null;
  private readonly walk: number[] = [];
  private shape?: string[];
  private reads: Record<string, () => Promise<boolean>> = {};
  private readonly latencies: Record<string, number[]> = {};
  private readonly errors: Record<string, number> = {};
  private readonly previewTimes: number[] = [];
  private previewErrors = 0;
  private readonly invokeTimes: number[] = [];
  private invokeErrors = 0;
  private invoked = 0;
  private heavy?: Pick<Figures, 'create' | 'createBaseline' | 'mixed' | 'mixedDeadlines' | 'settledAfterMixed'>;

  constructor(readonly p: Platform) {
    this.c = p.client;
  }

  private log(line: string): void {
    console.log(`[bench] ${layoutName[this.p.layout]}, ${this.p.artifacts} artifacts: ${line}`);
  }

  private async ok(method: string, path: string, payload?: unknown): Promise<boolean> {
    return (await call(this.c, method, path, payload)).status === 200;
  }

  /** Through REST, as a person would: an empty workspace, a small one, 100 drafts to commit; then the cursor to page 100. */
  async setup(): Promise<void> {
    const { c, p } = this;
    this.loads.push(loadavg()[0]!);
    this.emptyWs = (await must(c, 'POST', '/workspaces', { name: 'bench empty' })).id;
    this.smallWs = (await must(c, 'POST', '/workspaces', { name: 'bench small' })).id;
    this.draftsWs = (await must(c, 'POST', '/workspaces', { name: 'bench drafts' })).id;
    this.mixedWs = (await must(c, 'POST', '/workspaces', { name: 'bench mixed' })).id;
    this.collection = (await must(c, 'POST', '/collections', { name: 'bench collection' })).id;
    const smallIds = await createMany(c, this.smallWs, 60, 101);
    await createMany(c, this.draftsWs, 100, 102);
    if (!(await settled(p.db, [this.smallWs, this.draftsWs]))) this.log('the worker did not settle after the setup in 10 minutes');
    // A seeded draft never edited, next to one the platform created through REST.
    let unedited: string | undefined;
    for (const id of p.seed?.sampleArtifactIds ?? [])
      if ((await p.db.collection('artifacts').findOne({ _id: id as never }))?.revision === 1 && (unedited = id)) break;
    this.shape = unedited ? await shapeDifferences(p.db, unedited, smallIds[0]!) : undefined;
    if (this.shape?.length) this.log(`seeded documents differ from the platform's: ${this.shape.join('; ')}`);
    this.listed = p.seed ? p.seed.largeWorkspaceId : this.smallWs;
    this.ids = p.seed ? p.seed.sampleArtifactIds : smallIds;
    const qr = rng(5);
    this.queries = p.seed ? p.seed.queries : Array.from({ length: 40 }, () => query(qr));
    // Page 100 of the listed workspace: the cursor walked to it once (the walk's pages timed too).
    if (p.seed) {
      let cursor: string | null = null;
      for (let page = 1; page < 100; page++) {
        const t = performance.now();
        const r = await must(
          c,
          'GET',
          `/artifacts?collection_id=${this.listed}&limit=10${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        );
        this.walk.push(performance.now() - t);
        cursor = r.next_cursor;
        if (!cursor) throw new Error(`the large workspace has only ${page} pages`);
      }
      this.page100 = cursor;
    }
    // Every query once first: its embedding is cached, as for people repeating searches.
    for (const q of this.queries) await this.ok('POST', '/artifacts/search', { query: q, limit: 10 });
    let got = 0;
    let searched = 0;
    this.reads = {
      'GET /workspaces/{id}': () => this.ok('GET', `/workspaces/${this.emptyWs}`),
      'list an empty workspace': () => this.ok('GET', `/artifacts?collection_id=${this.emptyWs}&limit=10`),
      'list the first page': () => this.ok('GET', `/artifacts?collection_id=${this.listed}&limit=10`),
      ...(this.page100
        ? {
            'page 100': () =>
              this.ok('GET', `/artifacts?collection_id=${this.listed}&limit=10&cursor=${encodeURIComponent(this.page100!)}`),
          }
        : {}),
      'get an artifact': () => this.ok('GET', `/artifacts/${this.ids[got++ % this.ids.length]}`),
      'GET /mcp/servers': () => this.ok('GET', '/mcp/servers'),
      search: () => this.ok('POST', '/artifacts/search', { query: this.queries[searched++ % this.queries.length], limit: 10 }),
      // The same request on both platforms: one workspace of 60 artifacts, whatever else is stored.
      'search one workspace': () =>
        this.ok('POST', '/artifacts/search', {
          query: this.queries[searched++ % this.queries.length],
          limit: 10,
          workspace_ids: [this.smallWs],
        }),
    };
    for (const [k, read] of Object.entries(this.reads)) {
      this.latencies[k] = [];
      this.errors[k] = 0;
      await read(); // warm
    }
    await this.invokeOnce(); // warm
    this.invokeTimes.length = 0;
    this.invokeErrors = 0;
    this.log('set up');
  }

  /** One round of reads: every read `count` times. */
  async readRound(count: number): Promise<void> {
    for (const [k, read] of Object.entries(this.reads))
      for (let i = 0; i < count; i++) {
        const t = performance.now();
        if (!(await read())) this.errors[k]!++;
        this.latencies[k]!.push(performance.now() - t);
      }
  }

  /** A commit preview of the 100 drafts: request → awaiting_approval, then rejected (the drafts stay). */
  async preview(): Promise<void> {
    const { c } = this;
    const t = performance.now();
    const commit = await must(c, 'POST', `/workspaces/${this.draftsWs}/commits`, { collection_id: this.collection, message: 'bench' });
    let state = '';
    while (performance.now() - t < 120_000) {
      state = (await must(c, 'GET', `/commits/${commit.id}`)).state;
      if (state !== 'previewing') break;
      await new Promise((r) => setTimeout(r, 20));
    }
    this.previewTimes.push(performance.now() - t);
    if (state !== 'awaiting_approval') this.previewErrors++;
    else await must(c, 'POST', `/commits/${commit.id}/reject`, { comment: 'bench: preview only' });
  }

  /** A task-agent invocation in apply mode that applies one update (bench/invoke.ts's call). */
  async invokeOnce(): Promise<void> {
    const i = this.invoked++;
    const t = performance.now();
    const r = await call(this.c, 'POST', `/artifacts/${agentId('tag-keywords')}/invoke`, {
      artifact_ids: [this.ids[i % this.ids.length]],
      mode: 'apply',
      params: { rules: { [`t${i}`]: ['the', 'of', 'and', 'a', 'to'] } },
    });
    this.invokeTimes.push(performance.now() - t);
    if (!(r.status === 200 && r.json?.status === 'completed' && r.json.actions.length === 1)) this.invokeErrors++;
  }

  /** REST creates by 16 clients, then (the worker settled) the raw Koa + driver baseline; then the mixed load. */
  async heavyPhases(): Promise<void> {
    const { c, p } = this;
    if (!(await settled(p.db, [this.smallWs]))) this.log('the worker did not settle before the creates');
    const createWs = (await must(c, 'POST', '/workspaces', { name: 'bench creates' })).id as string;
    const body = (i: number) =>
      JSON.stringify({
        title: `Artifact ${i}`,
        content_type: 'text/markdown',
        content: `# Artifact ${i}\n\n${'lorem ipsum '.repeat(40)}`,
        collection_id: createWs,
      });
    const post = async (url: string, headers: Record<string, string>, i: number) =>
      (await fetch(url, { method: 'POST', headers, body: body(i) })
        .then(async (r) => (await r.arrayBuffer(), r.status))
        .catch(() => 0)) === 201;
    await load(50, 16, (i) => post(`${c.url}/artifacts`, c.headers, i));
    const create = await load(creates, 16, (i) => post(`${c.url}/artifacts`, c.headers, i));
    if (!(await settled(p.db, [createWs]))) this.log('the worker did not settle after the creates');
    const base = await p.baseline();
    let createBaseline: LoadResult;
    try {
      await load(50, 16, (i) => post(`${base.url}/items`, { 'content-type': 'application/json' }, i));
      createBaseline = await load(creates, 16, (i) => post(`${base.url}/items`, { 'content-type': 'application/json' }, i));
    } finally {
      await base.close();
    }
    this.log('creates measured');
    const deadlinesBefore = await storageDeadlines(p.metricsUrls);
    const mixed = await mixedLoad(c, { workspace: this.mixedWs, artifactIds: this.ids, queries: this.queries }, mixedSeconds);
    const mixedDeadlines = (await storageDeadlines(p.metricsUrls)) - deadlinesBefore;
    const settledAfterMixed = await settled(p.db, [], 5 * 60_000);
    this.log(`mixed load measured${settledAfterMixed ? '' : ' (the worker had not settled 5 minutes after it)'}`);
    this.heavy = { create, createBaseline, mixed, mixedDeadlines, settledAfterMixed };
    this.loads.push(loadavg()[0]!);
  }

  figures(): Figures {
    const { p } = this;
    const reads = Object.fromEntries(Object.keys(this.reads).map((k) => [k, stat(this.latencies[k]!, this.errors[k]!)]));
    if (this.walk.length) reads['pages 2–99 (the walk to page 100)'] = stat(this.walk, 0);
    return {
      layout: p.layout,
      artifacts: p.artifacts,
      startSeconds: p.startSeconds,
      searchIndex: p.searchIndex,
      seedSeconds: p.seed?.seconds,
      seedCounts: p.seed?.counts,
      vectors: p.seed?.vectors,
      reads,
      preview: stat(this.previewTimes, this.previewErrors),
      invoke: stat(this.invokeTimes, this.invokeErrors),
      ...this.heavy!,
      load: [this.loads[0]!, this.loads.at(-1)!],
      shape: this.shape,
    };
  }
}

const ms = (x: number) => (Number.isFinite(x) ? (x >= 100 ? x.toFixed(0) : x.toFixed(1)) : '–');

function printFigures(all: Figures[]): void {
  const cols = all.map((f) => `${layoutName[f.layout]} ${f.artifacts ? f.artifacts.toLocaleString('en') : 'empty'}`);
  const rows: [string, string[]][] = [];
  const readNames = [...new Set(all.flatMap((f) => Object.keys(f.reads)))];
  rows.push(['load average (1 min) at start / end', all.map((f) => `${f.load[0].toFixed(1)} / ${f.load[1].toFixed(1)}`)]);
  rows.push(['platform start → ready (s)', all.map((f) => f.startSeconds.toFixed(1))]);
  rows.push([
    'search index at start: artifacts / vectors',
    all.map((f) => (f.searchIndex ? `${f.searchIndex.artifacts} / ${f.searchIndex.vectors}` : '?')),
  ]);
  for (const k of readNames)
    rows.push([
      `${k}, p50 (p99) ms`,
      all.map((f) =>
        f.reads[k] ? `${ms(f.reads[k]!.p50)} (${ms(f.reads[k]!.p99)})${f.reads[k]!.errors ? ` ${f.reads[k]!.errors} err` : ''}` : '–',
      ),
    ]);
  rows.push([
    `commit preview of 100 drafts, p50 ms (${previews})`,
    all.map((f) => `${ms(f.preview.p50)}${f.preview.errors ? ` ${f.preview.errors} err` : ''}`),
  ]);
  rows.push([
    'task-agent invocation, apply, p50 (p99) ms',
    all.map((f) => `${ms(f.invoke.p50)} (${ms(f.invoke.p99)})${f.invoke.errors ? ` ${f.invoke.errors} err` : ''}`),
  ]);
  rows.push([
    'REST create, 16 clients, req/s (p50 ms)',
    all.map((f) => `${f.create.perSecond.toFixed(0)} (${ms(f.create.p50)})${f.create.errors ? ` ${f.create.errors} err` : ''}`),
  ]);
  rows.push([
    'raw Koa + driver create, req/s (p50 ms)',
    all.map((f) => `${f.createBaseline.perSecond.toFixed(0)} (${ms(f.createBaseline.p50)})`),
  ]);
  rows.push([`mixed load, 16 clients ${mixedSeconds} s: req/s`, all.map((f) => f.mixed.perSecond.toFixed(1))]);
  rows.push(['  p50 / p99 / max ms', all.map((f) => `${ms(f.mixed.p50)} / ${ms(f.mixed.p99)} / ${ms(f.mixed.max)}`)]);
  rows.push([
    '  5xx (storage) / unanswered / deadlines',
    all.map((f) => `${f.mixed.serverErrors} (${f.mixed.storageUnavailable}) / ${f.mixed.unanswered} / ${f.mixedDeadlines}`),
  ]);
  for (const op of ['create', 'get', 'patch', 'search', 'invoke'])
    rows.push([
      `  ${op} p50 / p99 ms`,
      all.map((f) => (f.mixed.byOp[op] ? `${ms(f.mixed.byOp[op]!.p50)} / ${ms(f.mixed.byOp[op]!.p99)}` : '–')),
    ]);
  const w0 = Math.max(...rows.map(([k]) => k.length));
  const widths = cols.map((c, i) => Math.max(c.length, ...rows.map(([, v]) => v[i]!.length)));
  console.log(`\n${''.padEnd(w0)} | ${cols.map((c, i) => c.padEnd(widths[i]!)).join(' | ')}`);
  console.log(`${'-'.repeat(w0)}-|-${widths.map((w) => '-'.repeat(w)).join('-|-')}`);
  for (const [k, v] of rows) console.log(`${k.padEnd(w0)} | ${v.map((x, i) => x.padEnd(widths[i]!)).join(' | ')}`);
  for (const f of all.filter((x) => x.seedCounts)) {
    const s = f.seedCounts!;
    console.log(
      `\n${layoutName[f.layout]}: seeded ${s.artifacts} artifacts (${large} in one workspace), ${s.revisions} revisions, ${s.events} events, ${s.archived} archived, ${s.workspaces} workspaces of ${s.people} people in ${f.seedSeconds!.toFixed(0)} s; vectors: ${f.vectors}`,
    );
    console.log(
      f.shape?.length
        ? `  differences from the platform's own documents: ${f.shape.join('; ')}`
        : "  seeded documents have the fields and types of the platform's own",
    );
  }
}

function recordRows(empty: Figures, full: Figures): void {
  const L = layoutName[full.layout];
  const at = `${full.artifacts.toLocaleString('en')} artifacts`;
  const wsGet = full.reads['GET /workspaces/{id}']!.p50;
  for (const k of ['list an empty workspace', 'list the first page', 'get an artifact']) {
    const m = full.reads[k]!;
    const e = empty.reads[k]!;
    const what = k === 'list the first page' ? `list the first page of the ${large.toLocaleString('en')}-artifact workspace` : k;
    recordGoal({
      row: 'scale',
      what: `${L}: ${what}, p50 at ${at}`,
      measured: `${ms(m.p50)} ms`,
      baseline: `empty platform ${ms(e.p50)} ms; ${ms(m.p50 / wsGet)}× GET /workspaces/{id} ${ms(wsGet)} ms`,
      ratio: m.p50 / e.p50,
      goal: '≤ 1.5× empty, ≤ 3× GET /workspaces/{id}',
      met: m.p50 <= 1.5 * e.p50 && m.p50 <= 3 * wsGet && m.errors === 0,
    });
  }
  const first = full.reads['list the first page']!;
  const deep = full.reads['page 100'];
  if (deep)
    recordGoal({
      row: 'scale',
      what: `${L}: page 100 of the ${large.toLocaleString('en')}-artifact workspace, p50 at ${at}`,
      measured: `${ms(deep.p50)} ms`,
      baseline: `its first page ${ms(first.p50)} ms`,
      ratio: deep.p50 / first.p50,
      goal: '≤ 2× its first page',
      met: deep.p50 <= 2 * first.p50 && deep.errors === 0,
    });
  const versusEmpty = (what: string, m: Stat, e: Stat, limit = 1.5) =>
    recordGoal({
      row: 'scale',
      what: `${L}: ${what}, p50 at ${at}`,
      measured: `${ms(m.p50)} ms`,
      baseline: `empty platform ${ms(e.p50)} ms`,
      ratio: m.p50 / e.p50,
      goal: `≤ ${limit}× empty`,
      met: m.p50 <= limit * e.p50 && m.errors === 0,
    });
  versusEmpty('GET /mcp/servers', full.reads['GET /mcp/servers']!, empty.reads['GET /mcp/servers']!);
  // Everything the administrator may search: on the seeded platform the large workspace and a fiftieth of the others.
  versusEmpty('search, everything the administrator may see', full.reads.search!, empty.reads.search!);
  versusEmpty('search within one 60-artifact workspace', full.reads['search one workspace']!, empty.reads['search one workspace']!);
  versusEmpty('commit preview of 100 drafts', full.preview, empty.preview);
  recordGoal({
    row: 'scale',
    what: `${L}: task-agent invocation, apply mode, p50 at ${at}`,
    measured: `${ms(full.invoke.p50)} ms`,
    baseline: `empty platform ${ms(empty.invoke.p50)} ms`,
    ratio: full.invoke.p50 / empty.invoke.p50,
    goal: '≤ 100 ms, ≤ 1.2× empty',
    met: full.invoke.p50 <= 100 && full.invoke.p50 <= 1.2 * empty.invoke.p50 && full.invoke.errors === 0,
  });
  const ratio = full.create.perSecond / full.createBaseline.perSecond;
  recordGoal({
    row: 'scale',
    what: `${L}: REST create, 16 clients, at ${at}`,
    measured: `${full.create.perSecond.toFixed(0)} req/s`,
    baseline: `raw Koa + driver ${full.createBaseline.perSecond.toFixed(0)} req/s`,
    ratio,
    goal: '≥ 0.6× the baseline',
    met: ratio >= 0.6 && full.create.errors === 0,
  });
  const m = full.mixed;
  recordGoal({
    row: 'scale',
    what: `${L}: 16-client mixed load ${mixedSeconds} s at ${at}, p99`,
    measured: `${ms(m.p99)} ms, ${m.serverErrors} 5xx, ${full.mixedDeadlines} deadlines${m.unanswered ? `, ${m.unanswered} unanswered` : ''}`,
    baseline: `p50 ${ms(m.p50)} ms, ${m.perSecond.toFixed(1)} req/s`,
    goal: 'p99 ≤ 1 s, no 5xx, no storage deadline',
    met: m.p99 <= 1000 && m.serverErrors === 0 && full.mixedDeadlines === 0 && m.unanswered === 0,
  });
}

async function main(): Promise<void> {
  const figures: Figures[] = [];
  const started = performance.now();
  for (const layout of layouts) {
    console.log(`[bench] ${layoutName[layout]} layout: an empty platform, and one of ${size} artifacts`);
    const platforms: Platform[] = [];
    try {
      const empty = new Measured(await startPlatform(layout, 0, large));
      platforms.push(empty.p);
      await empty.setup();
      const full = new Measured(await startPlatform(layout, size, large));
      platforms.push(full.p);
      await full.setup();
      // The light phases in turns, empty then seeded, a quarter at a time, each when both workers are
      // idle: an invocation or a preview leaves its worker work (an embedding, the commit's end) that
      // would otherwise weigh on whichever platform is measured next.
      const idle = async () => {
        for (const m of [empty, full]) await settled(m.p.db, [], 2 * 60_000);
      };
      for (let round = 0; round < 4; round++) {
        for (const m of [empty, full]) {
          await idle();
          await m.readRound(Math.ceil(reps / 4));
        }
        for (const m of [empty, full]) {
          await idle();
          for (let i = 0; i < Math.ceil(invocations / 4); i++) await m.invokeOnce();
        }
      }
      for (let i = 0; i < previews; i++)
        for (const m of [empty, full]) {
          await idle();
          await m.preview();
        }
      console.log(`[bench] ${layoutName[layout]}: reads, invocations and previews measured`);
      // The heavy phases one platform at a time: the empty one's, then it stops; then the seeded one's.
      await empty.heavyPhases();
      await empty.p.close();
      platforms.shift();
      await full.heavyPhases();
      const [e, f] = [empty.figures(), full.figures()];
      figures.push(e, f);
      recordRows(e, f);
    } finally {
      for (const p of platforms) await p.close();
    }
  }
  console.log(
    `\nissue #31 at scale: ${size} artifacts, ${reps} requests per read, ${((performance.now() - started) / 60_000).toFixed(1)} minutes in all`,
  );
  printFigures(figures);
  mkdirSync('.dev/bench-results', { recursive: true });
  const file = `.dev/bench-results/scale-${new Date().toISOString().replace(/[:.]/g, '')}.json`;
  writeFileSync(file, JSON.stringify(figures, null, 2));
  console.log(`\n(figures in ${file})`);
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
