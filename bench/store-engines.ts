// The storage decision of issue #31, measured: the same store calls the platform makes for its hot
// reads, through the same client code (createStoreClient + ensureIndexes), on FerretDB 1.24 on
// PostgreSQL and on the embedded store on PostgreSQL, each holding the same artifacts (default 20,000
// in 200 workspaces, one of them with 5,000). Prints p50 per call and engine, and the ratio.
//   node --import tsx bench/store-engines.ts            (BENCH_ARTIFACTS=20000, BENCH_ROUNDS=30)
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort, startEngines, type EmbeddedStore } from '../temporal-dev/engines.js';
import { createStoreClient, ensureIndexes } from '../src/store/mongo.js';

const total = Number(process.env.BENCH_ARTIFACTS ?? 20_000);
const rounds = Number(process.env.BENCH_ROUNDS ?? 30);
const workspaces = 200;
const big = Math.floor(total / 4);

const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function artifact(i: number, ws: string, position: number) {
  const now = new Date(Date.UTC(2026, 0, 1) + i * 1000);
  return {
    _id: `a-${String(i).padStart(7, '0')}`,
    collection_id: ws,
    container_kind: 'workspace',
    order_key: `h${String(position).padStart(8, '0')}`,
    title: `Artifact ${i}`,
    content_type: i % 3 ? 'text/markdown' : 'text/plain',
    content: `Body of artifact ${i}. `.repeat(20),
    context: {},
    revision: 1,
    created_at: now,
    updated_at: now,
  };
}

async function measure(engine: EmbeddedStore): Promise<Map<string, number>> {
  const stateDir = mkdtempSync(join(tmpdir(), `platform-store-engines-${engine}-`));
  chmodSync(stateDir, 0o711);
  const previous = process.env.EMBEDDED_STORE;
  process.env.EMBEDDED_STORE = engine;
  const engines = await startEngines({
    devDir: resolve(process.env.PLATFORM_DEV_DIR ?? '.dev'),
    stateDir,
    temporalPort: 0,
    temporalUiPort: null,
    mongoPort: await freePort(),
    startTemporal: false,
    startMongo: true,
    log: () => undefined,
    ephemeral: true,
  });
  process.env.EMBEDDED_STORE = previous;
  const client = createStoreClient(engines.storeUri!, 60_000);
  const results = new Map<string, number>();
  try {
    const db = client.db('store_engines');
    await ensureIndexes(db);
    const artifacts = db.collection<ReturnType<typeof artifact>>('artifacts');
    const docs = [];
    for (let i = 0; i < total; i++) {
      const inBig = i < big;
      const ws = inBig ? 'ws-big' : `ws-${i % workspaces}`;
      docs.push(artifact(i, ws, inBig ? i : Math.floor(i / workspaces)));
      if (docs.length === 1000) await artifacts.insertMany(docs.splice(0), { ordered: false });
    }
    if (docs.length) await artifacts.insertMany(docs, { ordered: false });
    const time = async (name: string, call: () => Promise<unknown>) => {
      const ms: number[] = [];
      for (let r = 0; r < rounds; r++) {
        const t = performance.now();
        await call();
        ms.push(performance.now() - t);
      }
      results.set(name, p50(ms));
    };
    const page = (ws: string, after?: string) =>
      artifacts
        .find({ collection_id: ws, ...(after ? { order_key: { $gt: after } } : {}) })
        .sort({ order_key: 1 })
        .limit(11)
        .toArray();
    await time('list an empty workspace (first page)', () => page('ws-empty'));
    await time(`first page of the ${big}-artifact workspace`, () => page('ws-big'));
    await time('page 100 of it (keyset)', () => page('ws-big', `h${String(1000).padStart(8, '0')}`));
    await time('get by _id', () => artifacts.findOne({ _id: `a-${String(total - 7).padStart(7, '0')}` }));
    await time('newest 11 by _id across the store', () =>
      artifacts
        .find({ _id: { $gt: 'a-0010000' } })
        .sort({ _id: 1 })
        .limit(11)
        .toArray(),
    );
    await time('count of one workspace', () => artifacts.countDocuments({ collection_id: 'ws-7' }));
  } finally {
    await client.close();
    await engines.stop();
    rmSync(stateDir, { recursive: true, force: true });
  }
  return results;
}

async function main(): Promise<void> {
  const ferret = await measure('ferretdb');
  const embedded = await measure('postgresql');
  console.log(`\n${total} artifacts in ${workspaces} workspaces (one with ${big}); p50 of ${rounds} calls, one client\n`);
  console.log('| call | FerretDB 1.24 on PostgreSQL | embedded store on PostgreSQL | ratio |');
  console.log('|---|---|---|---|');
  for (const [name, ms] of embedded) {
    const f = ferret.get(name)!;
    console.log(`| ${name} | ${f.toFixed(2)} ms | ${ms.toFixed(2)} ms | ${(f / ms).toFixed(0)}× |`);
  }
}

await main();
