// A platform for bench/scale.ts and bench/soak.ts, empty or seeded (bench/seed), in one of two layouts:
// `npm-start` (worker and API as processes of their own, the MiniLM embedder: bench/processes.ts) or
// `lean` (API and worker in the bench's process, the hashing embedder: bench/platform.ts, as the other
// benches run it). Each has the raw Koa + driver baseline on the same engines, in the same layout.
import { spawn, type ChildProcess } from 'node:child_process';
import type { Server } from 'node:http';
import type { Db } from 'mongodb';
import { freePort } from '../temporal-dev/engines.js';
import { baselineServer } from './baseline.js';
import type { Client } from './mixed.js';
import { benchPlatform, rawDatabase } from './platform.js';
import { processPlatform } from './processes.js';
import { prepareAndSeed } from './seed/prepare.js';
import type { SeedResult } from './seed/seed.js';

export type Layout = 'npm-start' | 'lean';
export const layoutName: Record<Layout, string> = { 'npm-start': 'npm start', lean: 'lean' };

export interface Platform {
  layout: Layout;
  artifacts: number;
  client: Client;
  db: Db;
  metricsUrls: string[];
  startSeconds: number;
  /** What the search index held once built at start. */
  searchIndex: { artifacts: number; vectors: number } | null;
  seed?: SeedResult;
  baseline(): Promise<{ url: string; close(): Promise<void> }>;
  close(): Promise<void>;
}

/** The platform of `layout`, seeded with `artifacts` (none: empty), `large` of them in one workspace. */
export async function startPlatform(layout: Layout, artifacts: number, large: number): Promise<Platform> {
  const name = `bench-scale-${layout}-${artifacts}`;
  let seed: SeedResult | undefined;
  const seeding = artifacts
    ? async (services: Parameters<typeof prepareAndSeed>[0]) => {
        seed = await prepareAndSeed(services, { artifacts, large, log: (l) => console.log(`[bench] ${l}`) });
      }
    : undefined;
  if (layout === 'npm-start') {
    const p = await processPlatform(name, {}, seeding);
    return {
      layout,
      artifacts,
      client: { url: p.url, headers: p.headers },
      db: p.services.db,
      metricsUrls: [`${p.url}/metrics`, p.workerMetricsUrl],
      startSeconds: p.startSeconds,
      searchIndex: p.searchIndex,
      seed,
      async baseline() {
        const port = await freePort();
        const proc: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'bench/baseline-process.ts'], {
          env: { ...process.env, ...p.settings, BASELINE_PORT: String(port) },
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        await new Promise<void>((resolve, reject) => {
          proc.stdout!.on('data', (d: Buffer) => d.toString().includes('baseline listening') && resolve());
          proc.once('exit', (code) => reject(new Error(`the baseline process exited (${code})`)));
        });
        return {
          url: `http://127.0.0.1:${port}`,
          close: () =>
            new Promise<void>((r) => {
              if (proc.exitCode !== null) return r();
              proc.once('exit', () => r());
              proc.kill('SIGTERM');
            }),
        };
      },
      close: p.close,
    };
  }
  let seededAt = 0;
  const bench = await benchPlatform(
    name,
    { EMBEDDINGS_PROVIDER: 'hashing' },
    {
      seed: async (services) => {
        await seeding?.(services);
        seededAt = performance.now();
      },
    },
  );
  return {
    layout,
    artifacts,
    client: { url: bench.url, headers: bench.headers },
    db: bench.services.db,
    metricsUrls: [`${bench.url}/metrics`],
    startSeconds: (performance.now() - seededAt) / 1000,
    searchIndex: { artifacts: bench.services.search.index.size, vectors: bench.services.search.index.vectorCount },
    seed,
    async baseline() {
      const db = rawDatabase(bench.services, 'bench_baseline');
      await db.dropDatabase();
      const port = await freePort();
      const server: Server = await baselineServer(db, port);
      return { url: `http://127.0.0.1:${port}`, close: () => new Promise<void>((r) => server.close(() => r())) };
    },
    close: () => bench.close(),
  };
}
