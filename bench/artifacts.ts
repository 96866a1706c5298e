// Artifact create, get and search through the whole platform (auth, validation, MongoDB, event signal to
// Temporal), next to a raw Koa + driver baseline measured in the same run. Prints req/s, p50/p99 and
// the platform/baseline ratio.
import { freePort } from '../temporal-dev/engines.js';
import { baselineServer } from './baseline.js';
import { recordGoal } from './goals.js';
import { interleaved, load, type LoadResult } from './load.js';
import { benchPlatform } from './platform.js';

const count = Number(process.env.BENCH_REQUESTS ?? 2000);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16);

async function main(): Promise<void> {
  // The hashing embedder: the REST path is measured, not the model (bench/indexing-load.ts measures that). With
  // MiniLM, the worker's embedding of the created artifacts takes the same two cores for minutes.
  const bench = await benchPlatform('bench-artifacts', { EMBEDDINGS_PROVIDER: 'hashing' });
  const { services, engines, url, headers } = bench;
  const baseDb = services.store.db('bench_baseline');
  await baseDb.dropDatabase();
  const basePort = await freePort();
  const base = await baselineServer(baseDb, basePort);

  try {
    const ws = await (await fetch(`${url}/workspaces`, { method: 'POST', headers, body: JSON.stringify({ name: 'bench' }) })).json();
    const body = (i: number) =>
      JSON.stringify({
        title: `Artifact ${i}`,
        content_type: 'text/markdown',
        content: `# Artifact ${i}\n\n${'lorem ipsum '.repeat(40)}`,
        collection_id: ws.id,
      });

    const ids: string[] = [];
    const baseIds: string[] = [];
    const post = async (target: string, h: Record<string, string>, i: number, into: string[]) => {
      const res = await fetch(target, { method: 'POST', headers: h, body: body(i) });
      const json = await res.json();
      into.push(json.id ?? json._id);
      return res.status === 201;
    };
    const get = async (target: string, h: Record<string, string>) => {
      const res = await fetch(target, { headers: h });
      await res.arrayBuffer();
      return res.status === 200;
    };

    // Warm both up, then measure.
    await load(100, concurrency, (i) => post(`${url}/artifacts`, headers, i, []));
    await load(100, concurrency, (i) => post(`http://127.0.0.1:${basePort}/items`, { 'content-type': 'application/json' }, i, []));
    const results: [string, LoadResult, LoadResult][] = [];
    // Create: the platform's, then (once the worker has done what they left it) the baseline's.
    const platformCreate = await load(count, concurrency, (i) => post(`${url}/artifacts`, headers, i, ids));
    // Let the worker finish what the creates left it (recording their events, embedding them), so the
    // rest is measured on its own: on these two cores it would take their CPU.
    const expected = ids.length + 100;
    const settled = async () =>
      (await services.db.collection('events').countDocuments()) >= expected &&
      (await services.db.collection('embedding_backlog').countDocuments()) === 0;
    while (!(await settled())) await new Promise((r) => setTimeout(r, 250));
    const baseCreate = await load(count, concurrency, (i) =>
      post(`http://127.0.0.1:${basePort}/items`, { 'content-type': 'application/json' }, i, baseIds),
    );
    results.push(['create', platformCreate, baseCreate]);
    // Reads leave no work behind: platform and baseline in turns, so the machine's other load weighs on both.
    results.push([
      'get',
      ...(await interleaved(
        count,
        concurrency,
        4,
        (i) => get(`${url}/artifacts/${ids[i % ids.length]}`, headers),
        (i) => get(`http://127.0.0.1:${basePort}/items/${baseIds[i % baseIds.length]}`, {}),
      )),
    ]);

    // Search: the platform's hybrid search (BM25 + vectors, fused) against a bounded regex find.
    const words = ['Artifact 1', 'Artifact 2', 'Artifact 3', 'Artifact 4', 'Artifact 5', 'Artifact 6', 'Artifact 7'];
    const search = async (i: number) => {
      const res = await fetch(`${url}/artifacts/search`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ query: words[i % words.length], limit: 10 }),
      });
      await res.arrayBuffer();
      return res.status === 200;
    };
    const searchCount = Math.min(count, Number(process.env.BENCH_SEARCHES ?? 500));
    await load(50, concurrency, search);
    results.push([
      'search',
      ...(await interleaved(searchCount, concurrency, 4, search, (i) =>
        get(`http://127.0.0.1:${basePort}/items?q=${encodeURIComponent(words[i % words.length]!)}`, {}),
      )),
    ]);

    console.log(
      `\n${count} requests per row (search: ${searchCount}), ${concurrency} concurrent clients, engine: ${engines.storeEngine}\n`,
    );
    console.log('op      | platform req/s  p50 ms  p99 ms | baseline req/s  p50 ms  p99 ms | throughput ratio | errors');
    for (const [op, p, b] of results) {
      const f = (r: LoadResult) => `${r.perSecond.toFixed(0).padStart(14)} ${r.p50.toFixed(1).padStart(7)} ${r.p99.toFixed(1).padStart(7)}`;
      console.log(`${op.padEnd(7)} |${f(p)} |${f(b)} | ${(p.perSecond / b.perSecond).toFixed(2).padStart(16)} | ${p.errors + b.errors}`);
    }
    console.log();
    for (const [op, p, b] of results.filter(([op]) => op !== 'search')) {
      const ratio = p.perSecond / b.perSecond;
      recordGoal({
        row: 'rest',
        what: `REST ${op} throughput`,
        measured: `${p.perSecond.toFixed(0)} req/s`,
        baseline: `raw Koa + driver ${b.perSecond.toFixed(0)} req/s`,
        ratio,
        goal: '≥ 0.6× the baseline',
        met: ratio >= 0.6 && p.errors === 0,
      });
    }
  } finally {
    await new Promise((r) => base.close(r));
    await bench.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
