// Starts the embedded engines (Temporal dev server, MongoDB-wire server) installed by install.sh,
// waits until each answers, and stops them. Used by `npm start`, `npm test` and `npm run bench`.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Connection } from '@temporalio/client';
import { MongoClient } from 'mongodb';
import { customSearchAttributes } from '../src/temporal/search-attributes.js';

export interface EngineOptions {
  devDir: string;
  /** Where this run keeps its data and logs (a fresh temporary folder for tests). */
  stateDir: string;
  temporalPort: number;
  /** null: no Web UI (tests). */
  temporalUiPort: number | null;
  mongoPort: number;
  startTemporal: boolean;
  startMongo: boolean;
  log: (line: string) => void;
}

export interface Engines {
  temporalAddress?: string;
  temporalUiUrl?: string;
  mongodbUri?: string;
  mongoEngine?: 'mongod' | 'ferretdb';
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolvePort(port));
    });
  });
}

function onPath(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`]).status === 0;
}

class Supervised {
  private exited = false;
  readonly child: ChildProcess;

  constructor(readonly name: string, command: string, args: string[], readonly logFile: string) {
    const out = createWriteStream(logFile); // one run per file: a failure's excerpt is this run's
    this.child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child.stdout!.pipe(out);
    this.child.stderr!.pipe(out);
    // Exited once its output is all written to the log, so a failure's excerpt is complete.
    this.child.once('close', () => out.end(() => (this.exited = true)));
  }

  get alive(): boolean {
    return !this.exited;
  }

  tail(): string {
    try {
      return readFileSync(this.logFile, 'utf8').split('\n').slice(-15).join('\n');
    } catch {
      return '';
    }
  }

  async stop(): Promise<void> {
    if (this.exited) return;
    const done = new Promise<void>((r) => this.child.once('close', () => r()));
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 8000);
    await done;
    clearTimeout(timer);
  }
}

async function waitFor(proc: Supervised, probe: () => Promise<unknown>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (!proc.alive) throw new Error(`${proc.name} exited during start-up; its log (${proc.logFile}) ends:\n${proc.tail()}`);
    try {
      await probe();
      return;
    } catch (err) {
      lastError = err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  throw new Error(`${proc.name} did not become ready in ${timeoutMs / 1000}s (${(lastError as Error)?.message}); log: ${proc.logFile}`);
}

async function startMongo(opts: EngineOptions, logs: string, procs: Supervised[]): Promise<{ uri: string; engine: 'mongod' | 'ferretdb' }> {
  const dataDir = join(opts.stateDir, 'mongo');
  mkdirSync(dataDir, { recursive: true });
  const uri = `mongodb://127.0.0.1:${opts.mongoPort}/`;
  let proc: Supervised;
  let engine: 'mongod' | 'ferretdb';
  if (onPath('mongod')) {
    engine = 'mongod';
    proc = new Supervised('mongod', 'mongod', ['--dbpath', dataDir, '--port', String(opts.mongoPort), '--bind_ip', '127.0.0.1'], join(logs, 'mongod.log'));
  } else {
    const bin = resolve(opts.devDir, 'bin', 'ferretdb');
    if (!existsSync(bin)) throw new Error(`FerretDB is not installed at ${bin}: run temporal-dev/install.sh`);
    engine = 'ferretdb';
    proc = new Supervised(
      'FerretDB',
      bin,
      [
        '--handler=sqlite',
        `--sqlite-url=file:${dataDir}/`,
        `--state-dir=${dataDir}`,
        `--listen-addr=127.0.0.1:${opts.mongoPort}`,
        '--debug-addr=-',
        '--telemetry=disable',
        '--log-level=warn',
      ],
      join(logs, 'ferretdb.log'),
    );
  }
  procs.push(proc); // registered before it is ready, so a failed start still stops it
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 1000 });
  try {
    await waitFor(proc, () => client.db('admin').command({ ping: 1 }), 60_000);
  } finally {
    await client.close();
  }
  return { uri, engine };
}

async function startTemporal(opts: EngineOptions, logs: string, procs: Supervised[]): Promise<{ address: string }> {
  const bin = resolve(opts.devDir, 'bin', 'temporal');
  if (!existsSync(bin)) throw new Error(`the Temporal CLI is not installed at ${bin}: run temporal-dev/install.sh`);
  const address = `127.0.0.1:${opts.temporalPort}`;
  const args = [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(opts.temporalPort),
    '--db-filename',
    join(opts.stateDir, 'temporal.db'),
    // Write-ahead logging without a sync per commit: survives a crash of the server process, not of
    // the machine, which is right for a development store and cuts every workflow step's latency.
    '--sqlite-pragma',
    'journal_mode=wal',
    '--sqlite-pragma',
    'synchronous=normal',
    '--log-level',
    'warn',
    ...customSearchAttributes.flatMap((a) => ['--search-attribute', `${a.name}=Keyword`]),
    ...(opts.temporalUiPort === null ? ['--headless'] : ['--ui-port', String(opts.temporalUiPort)]),
  ];
  const proc = new Supervised('Temporal dev server', bin, args, join(logs, 'temporal.log'));
  procs.push(proc);
  await waitFor(
    proc,
    async () => {
      const connection = await Connection.connect({ address, connectTimeout: 1000 });
      try {
        await connection.workflowService.describeNamespace({ namespace: 'default' });
      } finally {
        await connection.close();
      }
    },
    90_000,
  );
  return { address };
}

export async function startEngines(opts: EngineOptions): Promise<Engines> {
  const logs = join(opts.stateDir, 'logs');
  mkdirSync(logs, { recursive: true });
  const procs: Supervised[] = [];
  const engines: Engines = {
    stop: async () => {
      await Promise.all(procs.map((p) => p.stop()));
    },
  };
  try {
    // allSettled: when one engine fails, the other has finished starting before both are stopped.
    const [temporalResult, mongoResult] = await Promise.allSettled([
      opts.startTemporal ? startTemporal(opts, logs, procs) : undefined,
      opts.startMongo ? startMongo(opts, logs, procs) : undefined,
    ]);
    for (const r of [temporalResult, mongoResult]) if (r.status === 'rejected') throw r.reason;
    const temporal = temporalResult.status === 'fulfilled' ? temporalResult.value : undefined;
    const mongo = mongoResult.status === 'fulfilled' ? mongoResult.value : undefined;
    if (temporal) {
      engines.temporalAddress = temporal.address;
      if (opts.temporalUiPort !== null) engines.temporalUiUrl = `http://127.0.0.1:${opts.temporalUiPort}`;
      opts.log(`Temporal dev server ready at ${temporal.address}${engines.temporalUiUrl ? `, Web UI ${engines.temporalUiUrl}` : ''}`);
    }
    if (mongo) {
      engines.mongodbUri = mongo.uri;
      engines.mongoEngine = mongo.engine;
      opts.log(`${mongo.engine} ready at ${mongo.uri}`);
    }
    return engines;
  } catch (err) {
    await engines.stop();
    throw err;
  }
}

/**
 * Engines for one throwaway run (tests, benchmarks): free ports, no Web UI, state in a temporary
 * folder removed on stop. Always its own engines: MONGODB_URI / TEMPORAL_ADDRESS are deliberately
 * ignored, so a test run never touches a real database or cluster configured in the shell.
 */
export async function startEphemeralEngines(name: string, log: (line: string) => void): Promise<Engines & { stateDir: string }> {
  const stateDir = mkdtempSync(join(tmpdir(), `platform-${name}-`));
  const engines = await startEngines({
    devDir: resolve(process.env.PLATFORM_DEV_DIR ?? '.dev'),
    stateDir,
    temporalPort: await freePort(),
    temporalUiPort: null,
    mongoPort: await freePort(),
    startTemporal: true,
    startMongo: true,
    log,
  }).catch((err) => {
    rmSync(stateDir, { recursive: true, force: true });
    throw err;
  });
  return {
    ...engines,
    stateDir,
    stop: async () => {
      await engines.stop();
      rmSync(stateDir, { recursive: true, force: true });
    },
  };
}
