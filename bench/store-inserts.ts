// Bulk inserts on the embedded store (issue #33): 10,000 short documents shaped like artifacts (a
// title, 40–80 words, a few small fields) into a fresh collection of the store `npm start` runs
// (PostgreSQL), through the platform's own client and deadlines:
//   - insertMany in batches of 500 (multi-row statements); the same with one duplicate per batch, and
//     with every document a duplicate (a retried import: every statement refused, then row by row),
//   - insertOne one by one (what insertMany did before issue #33: one statement per document),
//   - the raw pg driver, the same documents as JSON into the same table shape (doc jsonb, unique _id),
//     one statement per batch in three forms: VALUES with a parameter per row, one JSON array parameter
//     unpacked by jsonb_array_elements, and a jsonb[] parameter unpacked by unnest.
// Prints documents per second and insertMany's ratio to the best raw form (issue #33's goals: ≥ 1,000
// documents/s and ≥ 0.6× raw driver inserts).
//   node --import tsx bench/store-inserts.ts          (BENCH_DOCS=10000, BENCH_BATCH=500, BENCH_ROUNDS=5)
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { freePort, startEngines } from '../temporal-dev/engines.js';
import { createStoreClient, openDatabase } from '../src/store/mongo.js';

const total = Number(process.env.BENCH_DOCS ?? 10_000);
const batch = Number(process.env.BENCH_BATCH ?? 500);
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);

const words = 'alpha beta gamma delta index store query vector search import batch workflow document revision claim backlog'.split(' ');

/** A deterministic artifact-like document: the same ones for every mode. */
function doc(i: number, run: string): Record<string, unknown> {
  let seed = i * 2654435761;
  const next = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) / 2 ** 24;
  const length = 40 + Math.floor(next() * 41);
  const body = Array.from({ length }, () => words[Math.floor(next() * words.length)]).join(' ');
  const at = new Date(Date.UTC(2026, 0, 1) + i * 1000);
  return {
    _id: `${run}-${String(i).padStart(7, '0')}`,
    collection_id: `ws-${i % 20}`,
    title: `Imported document ${i}`,
    content_type: 'text/markdown',
    content: body,
    revision: 1,
    created_at: at,
    updated_at: at,
  };
}

const docs = (run: string) => Array.from({ length: total }, (_, i) => doc(i, run));

/**
 * Each mode's best round, in documents per second; the modes take turns, so that load from elsewhere
 * falls on all of them alike. A mode that prepares something first returns the milliseconds of the
 * part it measures.
 */
async function interleaved(modes: [string, (run: string) => Promise<number | void>][]): Promise<[string, number][]> {
  const fastest = modes.map(() => Infinity);
  for (let r = 0; r < rounds; r++) {
    for (const [m, [, work]] of modes.entries()) {
      const started = performance.now();
      const measured = await work(`m${m}_r${r}`);
      fastest[m] = Math.min(fastest[m]!, measured ?? performance.now() - started);
    }
  }
  return modes.map(([name], m) => [name, (total / fastest[m]!) * 1000]);
}

async function main(): Promise<void> {
  const stateDir = mkdtempSync(join(tmpdir(), 'platform-store-inserts-'));
  chmodSync(stateDir, 0o711);
  const engines = await startEngines({
    devDir: resolve(process.env.PLATFORM_DEV_DIR ?? '.dev'),
    stateDir,
    temporalPort: 0,
    temporalUiPort: null,
    mongoPort: await freePort(),
    startTemporal: false,
    startMongo: true,
    // The engine's own lines (a watchdog's restart would make the numbers meaningless).
    log: (line) => console.error(`[engine] ${line}`),
    ephemeral: true,
  });
  const client = createStoreClient(engines.storeUri!, 60_000);
  const pool = new pg.Pool({ connectionString: engines.storeUri!, max: 2, statement_timeout: 60_000 });
  // An idle connection of the raw pool hears the engine's shutdown at the end; anything earlier is told.
  let stopping = false;
  pool.on('error', (err) => stopping || console.error(`[raw pool] ${err.message}`));
  let results: [string, number][];
  try {
    const db = openDatabase(client, 'store_inserts', 60_000);
    const slices = <T>(xs: T[]) => Array.from({ length: Math.ceil(xs.length / batch) }, (_, i) => xs.slice(i * batch, (i + 1) * batch));
    const raw =
      (statement: (table: string, texts: string[]) => [string, unknown[]]) =>
      async (run: string): Promise<void> => {
        const table = `raw."${run}"`;
        await pool.query('CREATE SCHEMA IF NOT EXISTS raw');
        await pool.query(`CREATE TABLE ${table} (doc jsonb NOT NULL)`);
        await pool.query(`CREATE UNIQUE INDEX ON ${table} ((doc->'_id'))`);
        for (const slice of slices(docs(run))) {
          const [text, values] = statement(
            table,
            slice.map((d) => JSON.stringify(d)),
          );
          await pool.query(text, values);
        }
      };
    results = await interleaved([
      [
        `store insertMany, batches of ${batch}`,
        async (run) => {
          const coll = db.collection(run);
          for (const slice of slices(docs(run))) await coll.insertMany(slice);
        },
      ],
      [
        `store insertMany unordered, batches of ${batch} with one duplicate _id each`,
        async (run) => {
          const coll = db.collection(run);
          const all = docs(run);
          await coll.insertOne({ ...all[0]! });
          // Each batch's middle document repeats the stored one: the statement is refused and halved.
          for (const slice of slices(all)) {
            slice[Math.floor(slice.length / 2)]!._id = all[0]!._id;
            await coll.insertMany(slice, { ordered: false }).catch((err: { writeErrors?: unknown }) => {
              if (!err.writeErrors) throw err;
            });
          }
        },
      ],
      [
        `store insertMany unordered, batches of ${batch}, every document already stored (a retried import)`,
        async (run) => {
          const coll = db.collection(run);
          const all = docs(run);
          for (const slice of slices(all)) await coll.insertMany(slice.map((d) => ({ ...d })));
          const started = performance.now();
          for (const slice of slices(all))
            await coll.insertMany(slice, { ordered: false }).catch((err: { writeErrors?: unknown }) => {
              if (!err.writeErrors) throw err;
            });
          return performance.now() - started;
        },
      ],
      [
        'store insertOne, one by one (insertMany before #33)',
        async (run) => {
          const coll = db.collection(run);
          for (const d of docs(run)) await coll.insertOne(d);
        },
      ],
      [
        `raw pg, VALUES ($1), ($2), … per ${batch}`,
        raw((table, texts) => [`INSERT INTO ${table} (doc) VALUES ${texts.map((_, i) => `($${i + 1}::jsonb)`).join(',')}`, texts]),
      ],
      [
        `raw pg, jsonb_array_elements($1) per ${batch}`,
        raw((table, texts) => [`INSERT INTO ${table} (doc) SELECT value FROM jsonb_array_elements($1::jsonb)`, [`[${texts.join(',')}]`]]),
      ],
      [
        `raw pg, unnest($1::jsonb[]) per ${batch}`,
        raw((table, texts) => [`INSERT INTO ${table} (doc) SELECT unnest($1::jsonb[])`, [texts]]),
      ],
    ]);
  } finally {
    stopping = true;
    await pool.end();
    await client.close();
    await engines.stop();
    rmSync(stateDir, { recursive: true, force: true });
  }
  const store = results[0]![1];
  const rawBest = Math.max(...results.filter(([n]) => n.startsWith('raw')).map(([, v]) => v));
  console.log(`\n${total} documents (40–80 words each), best of ${rounds} interleaved rounds, embedded store on PostgreSQL\n`);
  console.log('| how | documents/s |');
  console.log('|---|---|');
  for (const [name, perS] of results) console.log(`| ${name} | ${perS.toFixed(0)} |`);
  console.log(
    `\ninsertMany ÷ best raw pg form: ${(store / rawBest).toFixed(2)}× (goal ≥ 0.6×); ÷ insertOne one by one: ${(store / results.find(([n]) => n.startsWith('store insertOne'))![1]).toFixed(1)}×`,
  );
}

await main();
