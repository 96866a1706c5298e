// The platform as `npm start` runs it (scripts/dev.ts): engines, then the worker and the API as two
// processes of their own, with npm start's development settings (scripts/start-settings.ts: the metrics
// listeners, here on free ports) and every default as it ships (the MiniLM embedder, info logs, the
// API without a worker of its own). The bench's changes: its own engines and ports, a known
// administrator, rate limits off (one principal from one address far past any budget), and the
// processes' logs in files. The bench process itself only seeds, measures, and reads the store.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, readFileSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { loadConfig, type Config } from '../src/kernel/config/env.js';
import { createLogger } from '../src/kernel/logging/logger.js';
import { closeServices, createServices } from '../src/main/services.js';
import type { Services } from '../src/operations/services.js';
import { freePort, startEphemeralEngines, type Engines } from '../temporal-dev/engines.js';
import { startEnv } from '../scripts/start-settings.js';
import { platformSettings, signInBenchAdmin } from './platform.js';

export interface ProcessPlatform {
  engines: Engines & { stateDir: string };
  config: Config;
  /** The settings the processes were started with (on top of the bench's environment). */
  settings: Record<string, string>;
  /** The bench's own services on the same store (seeding, settling checks): not the API's. */
  services: Services;
  url: string;
  headers: Record<string, string>;
  /** The worker's metrics listener. */
  workerMetricsUrl: string;
  /** Seconds from spawning the processes to a ready API (its search index built) and a polling worker. */
  startSeconds: number;
  /** What the API's search index held when it was built (its log's 'search index built'), if it said. */
  searchIndex: { artifacts: number; vectors: number } | null;
  logs: string;
  close(): Promise<void>;
}

function child(name: string, script: string, env: NodeJS.ProcessEnv, logFile: string): ChildProcess {
  const out = createWriteStream(logFile);
  const proc = spawn(process.execPath, ['--import', 'tsx', script], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  proc.stdout!.pipe(out);
  proc.stderr!.pipe(out);
  proc.once('exit', (code, signal) => {
    if (!stopping.has(proc)) console.log(`[bench] ${name} exited (${signal ?? code}); its log: ${logFile}`);
  });
  return proc;
}

const stopping = new WeakSet<ChildProcess>();

async function stopChild(proc: ChildProcess): Promise<void> {
  stopping.add(proc);
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  await new Promise<void>((r) => {
    const kill = setTimeout(() => proc.kill('SIGKILL'), 15_000);
    proc.once('exit', () => (clearTimeout(kill), r()));
    proc.kill('SIGTERM');
  });
}

/**
 * Starts the engines, lets `seed` fill the store (through the bench's own services), then the worker
 * and API processes, and signs the administrator in.
 */
export async function processPlatform(
  name: string,
  overrides: Record<string, string> = {},
  seed?: (services: Services) => Promise<void>,
): Promise<ProcessPlatform> {
  const engines = await startEphemeralEngines(name, (line) => console.log(`[bench] ${line}`));
  const port = await freePort();
  const workerMetrics = `127.0.0.1:${await freePort()}`;
  const settings = platformSettings(name, engines, port, {
    // npm start's defaults, which the in-process benches change: info logs, the model, no worker in the API.
    LOG_LEVEL: 'info',
    ...startEnv({}),
    WORKER_METRICS_ADDRESS: workerMetrics,
    TEMPORAL_METRICS_ADDRESS: `127.0.0.1:${await freePort()}`,
    ...overrides,
  });
  const config = loadConfig(settings);
  const services = createServices(config, createLogger('warn'));
  const procs: ChildProcess[] = [];
  const close = async () => {
    await Promise.all(procs.map(stopChild));
    await closeServices(services);
    await engines.stop();
  };
  try {
    await services.db.dropDatabase();
    if (seed) await seed(services);
    const logs = join(engines.stateDir, 'logs');
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...settings,
      PATH: [process.env.PATH, resolve(process.env.PLATFORM_DEV_DIR ?? '.dev', 'bin')].filter(Boolean).join(delimiter),
    };
    const started = performance.now();
    const workerLog = join(logs, 'worker.log');
    const apiLog = join(logs, 'api.log');
    procs.push(child('worker', 'src/main/worker.ts', env, workerLog));
    procs.push(child('API', 'src/main/api.ts', env, apiLog));
    const url = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 15 * 60_000;
    let apiReady = false;
    let workerReady = false;
    while (!(apiReady && workerReady)) {
      if (Date.now() > deadline) throw new Error(`the platform did not start in 15 minutes (logs: ${logs})`);
      for (const p of procs)
        if (p.exitCode !== null || p.signalCode !== null) throw new Error(`a platform process exited during start (logs: ${logs})`);
      if (!apiReady)
        apiReady = await fetch(`${url}/readyz`).then(
          (r) => r.ok,
          () => false,
        );
      if (!workerReady) workerReady = existsSync(workerLog) && readFileSync(workerLog, 'utf8').includes('"worker running"');
      if (!(apiReady && workerReady)) await new Promise((r) => setTimeout(r, 250));
    }
    const startSeconds = (performance.now() - started) / 1000;
    const built = readFileSync(apiLog, 'utf8')
      .split('\n')
      .filter((l) => l.includes('"search index built"'))
      .map((l) => JSON.parse(l) as { artifacts?: number; vectors?: number })
      .at(-1);
    const searchIndex = built?.artifacts !== undefined ? { artifacts: built.artifacts, vectors: built.vectors ?? 0 } : null;
    const login = await signInBenchAdmin(url);
    return {
      engines,
      config,
      settings,
      services,
      url,
      headers: { authorization: `Bearer ${login.access_token}`, 'content-type': 'application/json' },
      workerMetricsUrl: `http://${workerMetrics}/metrics`,
      startSeconds,
      searchIndex,
      logs,
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}
