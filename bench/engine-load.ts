// The embedded engine on its own, through the driver: N clients (default 64) each looping
// `find().limit(5)` then an `updateOne` `$set` of a random document, for D seconds (default 20).
// Prints operations, errors, p50/p99 per operation. Run once per backend to choose between them:
//   EMBEDDED_MONGO_BACKEND=sqlite|postgresql node --import tsx bench/engine-load.ts
import { mkdtempSync, rmSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { MongoClient } from 'mongodb';
import { freePort, startEngines } from '../temporal-dev/engines.js';

const clients = Number(process.env.BENCH_CLIENTS ?? 64);
const seconds = Number(process.env.BENCH_SECONDS ?? 20);
const docs = 1000;

function pct(sorted: number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]! : NaN;
}

async function main(): Promise<void> {
  const stateDir = mkdtempSync(join(tmpdir(), 'platform-engine-load-'));
  chmodSync(stateDir, 0o711);
  const engines = await startEngines({
    devDir: resolve(process.env.PLATFORM_DEV_DIR ?? '.dev'),
    stateDir,
    temporalPort: 0,
    temporalUiPort: null,
    mongoPort: await freePort(),
    startTemporal: false,
    startMongo: true,
    log: (l) => console.log(`[engine-load] ${l}`),
    ephemeral: true,
  });
  // As many pooled connections as clients, like an API process under load.
  const client = new MongoClient(engines.storeUri!, { maxPoolSize: clients });
  try {
    const items = client.db('engine_load').collection<{ _id: number; n: number; text: string; tag: number }>('items');
    await items.insertMany(Array.from({ length: docs }, (_, i) => ({ _id: i, n: 0, text: 'lorem ipsum '.repeat(20), tag: i % 10 })));
    await items.createIndex({ tag: 1 });
    const lat = { find: [] as number[], update: [] as number[] };
    let errors = 0;
    const end = Date.now() + seconds * 1000;
    const worker = async (w: number) => {
      let i = w;
      while (Date.now() < end) {
        i++;
        let t = performance.now();
        try {
          await items
            .find({ tag: i % 10 }, { maxTimeMS: 30_000 })
            .limit(5)
            .toArray();
          lat.find.push(performance.now() - t);
          t = performance.now();
          await items.updateOne({ _id: (i * 7919) % docs }, { $set: { n: i, at: new Date() } }, { maxTimeMS: 30_000 } as never);
          lat.update.push(performance.now() - t);
        } catch {
          errors++;
        }
      }
    };
    const started = performance.now();
    await Promise.all(Array.from({ length: clients }, (_, w) => worker(w)));
    const elapsed = (performance.now() - started) / 1000;
    const total = lat.find.length + lat.update.length;
    console.log(
      `\n${engines.storeEngine}: ${clients} clients, ${elapsed.toFixed(1)} s, ${total} operations (${(total / elapsed).toFixed(0)}/s), ${errors} errors`,
    );
    for (const [op, xs] of Object.entries(lat)) {
      const s = xs.sort((a, b) => a - b);
      console.log(
        `  ${op.padEnd(7)} ${String(s.length).padStart(7)} ops  p50 ${pct(s, 50).toFixed(1)} ms  p99 ${pct(s, 99).toFixed(1)} ms`,
      );
    }
  } finally {
    await client.close();
    await engines.stop();
    rmSync(stateDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
