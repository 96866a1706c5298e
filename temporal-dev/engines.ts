// Starts the embedded engines (Temporal dev server, the store) installed by install.sh, waits until
// each answers, and stops them. Used by `npm start`, `npm test` and `npm run bench`.
// The store is PostgreSQL itself by default (its own cluster under <stateDir>/postgres; the platform's
// embedded store implementation, src/store/postgres, speaks to it), or with EMBEDDED_STORE a
// MongoDB-wire server: `ferretdb` (FerretDB 1.24 on that PostgreSQL), `ferretdb-sqlite`, `mongod` (on
// PATH). An engine that dies after it was ready is restarted (with backoff), and the log says so.
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, createWriteStream, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Connection } from '@temporalio/client';
import { MongoClient } from 'mongodb';
import { customSearchAttributes } from '../src/temporal/search-attributes.js';
import { startUiProxy } from './ui-proxy.js';

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
  /** Throwaway data (tests, benchmarks): PostgreSQL runs without fsync. */
  ephemeral?: boolean;
  /**
   * The codec server the Web UI decodes payloads with (`--ui-codec-endpoint`); default
   * TEMPORAL_UI_CODEC_ENDPOINT, which scripts/start.sh sets to the API's /codec/session.
   */
  uiCodecEndpoint?: string;
}

/**
 * The embedded store (EMBEDDED_STORE): `postgresql` (default: the platform's store on PostgreSQL),
 * `ferretdb` (MongoDB wire, FerretDB on PostgreSQL), `ferretdb-sqlite`, or `mongod` (from PATH).
 * EMBEDDED_MONGO_BACKEND=sqlite, the older setting, still means ferretdb-sqlite.
 */
export type EmbeddedStore = 'postgresql' | 'ferretdb' | 'ferretdb-sqlite' | 'mongod';

export function embeddedStore(env: NodeJS.ProcessEnv = process.env): EmbeddedStore {
  const value = env.EMBEDDED_STORE?.trim() || (env.EMBEDDED_MONGO_BACKEND?.trim() === 'sqlite' ? 'ferretdb-sqlite' : 'postgresql');
  if (!['postgresql', 'ferretdb', 'ferretdb-sqlite', 'mongod'].includes(value))
    throw new Error(`EMBEDDED_STORE must be postgresql, ferretdb, ferretdb-sqlite or mongod, not ${JSON.stringify(value)}`);
  return value as EmbeddedStore;
}

export interface Engines {
  temporalAddress?: string;
  temporalUiUrl?: string;
  /** The store's URI: postgres:// (the embedded store) or mongodb:// (a MongoDB-wire server). */
  storeUri?: string;
  storeEngine?: EmbeddedStore;
  /** The store's server process (the postmaster, FerretDB or mongod): tests pause it. */
  storePid?: number;
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

interface SuperviseOptions {
  /** Restart the process when it dies after it was ready (npm start, tests), logging each restart. */
  log?: (line: string) => void;
  /** Signal that stops it cleanly (PostgreSQL: SIGINT, a fast shutdown). */
  stopSignal?: NodeJS.Signals;
  uid?: number;
  gid?: number;
  cwd?: string;
}

export class Supervised {
  private child!: ChildProcess;
  private exited = false;
  private stopping = false;
  private ready = false;
  private restartTimer: NodeJS.Timeout | undefined;
  private startedAt = 0;
  private backoffMs = 500;
  restarts = 0;

  constructor(
    readonly name: string,
    private readonly command: string,
    private readonly args: string[],
    readonly logFile: string,
    private readonly opts: SuperviseOptions = {},
  ) {
    this.launch(false);
  }

  private launch(append: boolean): void {
    // One run per file (a failure's excerpt is this run's); a restart appends to it.
    const out = createWriteStream(this.logFile, { flags: append ? 'a' : 'w' });
    this.exited = false;
    this.startedAt = Date.now();
    const child = spawn(this.command, this.args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      uid: this.opts.uid,
      gid: this.opts.gid,
      cwd: this.opts.cwd,
    });
    this.child = child;
    child.on('error', (err) => out.write(`[supervisor] ${err.message}\n`));
    child.stdout!.pipe(out, { end: false });
    child.stderr!.pipe(out, { end: false });
    // Exited once its output is all written to the log, so a failure's excerpt is complete.
    child.once('close', (code, signal) =>
      out.end(() => {
        this.exited = true;
        if (this.stopping || !this.ready || !this.opts.log) return;
        // Asked to stop (exit 0, SIGINT, SIGTERM: a Ctrl-C reaches the whole process group before our
        // own stop does) is not a death: restarting it would fight the shutdown.
        if (code === 0 || signal === 'SIGINT' || signal === 'SIGTERM' || signal === 'SIGHUP') {
          this.opts.log(`${this.name} stopped (${signal ?? `code ${code}`}); not restarting it, it was asked to stop`);
          return;
        }
        // Died after it was ready: restart it, backing off while it keeps dying young.
        if (Date.now() - this.startedAt > 60_000) this.backoffMs = 500;
        const delay = this.backoffMs;
        this.backoffMs = Math.min(this.backoffMs * 2, 30_000);
        this.opts.log(
          `${this.name} exited unexpectedly (${signal ?? `code ${code}`}); restarting it in ${delay} ms (log: ${this.logFile})`,
        );
        this.restartTimer = setTimeout(() => {
          this.restartTimer = undefined;
          if (this.stopping) return;
          this.restarts++;
          this.launch(true);
          this.opts.log?.(`${this.name} restarted (pid ${this.child.pid}, restart #${this.restarts})`);
        }, delay);
      }),
    );
  }

  /** Called once it answered: from then on a death is restarted (when a log was given). */
  markReady(): void {
    this.ready = true;
  }

  get pid(): number | undefined {
    return this.child.pid;
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
    this.stopping = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    if (this.exited) return;
    const child = this.child;
    const done = new Promise<void>((r) => child.once('close', () => r()));
    child.kill(this.opts.stopSignal ?? 'SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 8000);
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
      proc.markReady();
      return;
    } catch (err) {
      lastError = err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  throw new Error(`${proc.name} did not become ready in ${timeoutMs / 1000}s (${(lastError as Error)?.message}); log: ${proc.logFile}`);
}

/** A PostgreSQL program: on PATH, else Debian's versioned folder (the postgresql package does not link them). */
export function postgresBinary(name: string): string | null {
  const found = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
  if (found.status === 0 && found.stdout.trim()) return found.stdout.trim();
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((v) => /^\d+$/.test(v))
    .sort((a, b) => Number(b) - Number(a));
  for (const v of versions) if (existsSync(join(root, v, 'bin', name))) return join(root, v, 'bin', name);
  return null;
}

function userIds(user: string): { uid: number; gid: number } | null {
  const uid = spawnSync('id', ['-u', user], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', user], { encoding: 'utf8' });
  if (uid.status !== 0 || gid.status !== 0) return null;
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

const execFileText = (file: string, args: string[]) =>
  new Promise<void>((resolveRun, reject) => execFile(file, args, { timeout: 5000 }, (err) => (err ? reject(err) : resolveRun())));

/** What engines.stop() stops: the supervised processes, and the Web UI's proxy. */
interface Stoppable {
  stop(): Promise<void>;
}

/**
 * PostgreSQL for FerretDB: a cluster under <stateDir>/postgres, initialised on first use, reachable only
 * through a unix socket in a folder of its own (no TCP listener). PostgreSQL refuses to run as root, so
 * as root it runs as the `postgres` user (which must be able to reach the state folder).
 */
async function startPostgres(
  opts: EngineOptions,
  logs: string,
  procs: Stoppable[],
): Promise<{ url: string; socketDir: string; pid: number }> {
  const missing = () =>
    new Error(
      'PostgreSQL is not installed (no initdb/postgres on PATH or under /usr/lib/postgresql): run temporal-dev/install.sh as root, ' +
        'or `sudo apt-get install -y postgresql`; or set STORE_URI to a real MongoDB or PostgreSQL',
    );
  const initdb = postgresBinary('initdb');
  const postgres = postgresBinary('postgres');
  const pgIsReady = postgresBinary('pg_isready');
  if (!initdb || !postgres) throw missing();
  const base = join(opts.stateDir, 'postgres');
  const dataDir = join(base, 'data');
  mkdirSync(base, { recursive: true, mode: 0o700 });
  // The socket's path must stay under the kernel's 107 bytes; a deep checkout gets a short folder in /tmp.
  let socketDir = join(base, 'run');
  if (Buffer.byteLength(join(socketDir, '.s.PGSQL.5432')) > 100) socketDir = mkdtempSync(join(tmpdir(), 'platform-pg-'));
  mkdirSync(socketDir, { recursive: true, mode: 0o700 });
  let ids: { uid: number; gid: number } | undefined;
  if (process.getuid?.() === 0) {
    const found = userIds('postgres');
    if (!found)
      throw new Error(
        "PostgreSQL refuses to run as root and there is no `postgres` user: install Debian's postgresql package (temporal-dev/install.sh does), or run as another user",
      );
    ids = found;
    for (const dir of [base, socketDir]) chownSync(dir, ids.uid, ids.gid);
    const reach = spawnSync('test', ['-w', base], { uid: ids.uid, gid: ids.gid, cwd: '/' });
    if (reach.status !== 0) {
      throw new Error(
        `PostgreSQL runs as the postgres user here (we are root), and that user cannot reach ${base}: make its parent folders traversable (chmod o+x), or run as a non-root user`,
      );
    }
  }
  if (!existsSync(join(dataDir, 'PG_VERSION'))) {
    const init = spawnSync(
      initdb,
      ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync', '--no-instructions'],
      {
        uid: ids?.uid,
        gid: ids?.gid,
        cwd: base,
        encoding: 'utf8',
      },
    );
    if (init.status !== 0) throw new Error(`initdb failed for ${dataDir}:\n${init.stderr || init.stdout}`);
  }
  const args = [
    '-D',
    dataDir,
    '-k',
    socketDir,
    '-c',
    'listen_addresses=',
    '-c',
    'port=5432',
    '-c',
    'max_connections=300',
    // Plans for small, indexed statements: compiling them (JIT) costs more than running them.
    '-c',
    'jit=off',
    '-c',
    'random_page_cost=1.1',
    // synchronous_commit stays on: with it off, a PostgreSQL crash loses its last commits (a collection
    // just created, measured), while FerretDB's metadata cache still names their tables. Throwaway runs
    // skip fsync: a commit then survives a crash of the server process, not of the machine.
    ...(opts.ephemeral ? ['-c', 'fsync=off', '-c', 'full_page_writes=off'] : []),
  ];
  const proc = new Supervised('PostgreSQL', postgres, args, join(logs, 'postgresql.log'), {
    log: opts.log,
    stopSignal: 'SIGINT',
    uid: ids?.uid,
    gid: ids?.gid,
    cwd: base,
  });
  procs.push(proc);
  await waitFor(
    proc,
    () =>
      pgIsReady
        ? execFileText(pgIsReady, ['-q', '-h', socketDir, '-p', '5432', '-U', 'postgres', '-d', 'postgres'])
        : readFileSync(proc.logFile, 'utf8').includes('ready to accept connections')
          ? Promise.resolve()
          : Promise.reject(new Error('not ready')),
    60_000,
  );
  // Each store database (and each FerretDB database) is a schema in the `postgres` database.
  return { url: `postgres://postgres@/postgres?host=${encodeURIComponent(socketDir)}&port=5432`, socketDir, pid: proc.pid! };
}

async function startStore(
  opts: EngineOptions,
  logs: string,
  procs: Stoppable[],
): Promise<{ uri: string; engine: EmbeddedStore; pid: number }> {
  const engine = process.env.EMBEDDED_STORE?.trim() ? embeddedStore() : onPath('mongod') ? 'mongod' : embeddedStore();
  if (engine === 'postgresql') {
    const pg = await startPostgres(opts, logs, procs);
    return { uri: pg.url, engine, pid: pg.pid };
  }
  const dataDir = join(opts.stateDir, 'mongo');
  mkdirSync(dataDir, { recursive: true });
  const uri = `mongodb://127.0.0.1:${opts.mongoPort}/`;
  let proc: Supervised;
  if (engine === 'mongod') {
    proc = new Supervised(
      'mongod',
      'mongod',
      ['--dbpath', dataDir, '--port', String(opts.mongoPort), '--bind_ip', '127.0.0.1'],
      join(logs, 'mongod.log'),
      { log: opts.log },
    );
  } else {
    const bin = resolve(opts.devDir, 'bin', 'ferretdb');
    if (!existsSync(bin)) throw new Error(`FerretDB is not installed at ${bin}: run temporal-dev/install.sh`);
    const storage =
      engine === 'ferretdb'
        ? ['--handler=postgresql', `--postgresql-url=${(await startPostgres(opts, logs, procs)).url}&pool_max_conns=100`]
        : ['--handler=sqlite', `--sqlite-url=file:${dataDir}/`];
    proc = new Supervised(
      'FerretDB',
      bin,
      [
        ...storage,
        `--state-dir=${dataDir}`,
        `--listen-addr=127.0.0.1:${opts.mongoPort}`,
        '--debug-addr=-',
        '--telemetry=disable',
        '--log-level=warn',
      ],
      join(logs, 'ferretdb.log'),
      { log: opts.log },
    );
  }
  procs.push(proc); // registered before it is ready, so a failed start still stops it
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 1000 });
  try {
    // FerretDB on PostgreSQL answers a ping before it can reach PostgreSQL: probe with a real read.
    await waitFor(proc, () => client.db('admin').command({ listDatabases: 1, nameOnly: true }), 60_000);
  } finally {
    await client.close();
  }
  return { uri, engine, pid: proc.pid! };
}

/** The Web UI's codec server: payloads are sealed by the platform's codec, and the UI shows them decoded through it. */
function uiCodecEndpoint(opts: EngineOptions): string | undefined {
  return opts.uiCodecEndpoint ?? (process.env.TEMPORAL_UI_CODEC_ENDPOINT?.trim() || undefined);
}

async function startTemporal(opts: EngineOptions, logs: string, procs: Stoppable[]): Promise<{ address: string }> {
  const bin = resolve(opts.devDir, 'bin', 'temporal');
  if (!existsSync(bin)) throw new Error(`the Temporal CLI is not installed at ${bin}: run temporal-dev/install.sh`);
  const address = `127.0.0.1:${opts.temporalPort}`;
  const codec = opts.temporalUiPort === null ? undefined : uiCodecEndpoint(opts);
  // With a codec endpoint, the UI itself listens on a port of its own, behind ui-proxy.ts on the
  // port people open (which turns on the UI's "include credentials" for codec calls).
  const uiPort = codec ? await freePort() : opts.temporalUiPort;
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
    ...(uiPort === null ? ['--headless'] : ['--ui-port', String(uiPort), ...(codec ? ['--ui-codec-endpoint', codec] : [])]),
  ];
  const proc = new Supervised('Temporal dev server', bin, args, join(logs, 'temporal.log'), { log: opts.log });
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
  if (codec && opts.temporalUiPort !== null && uiPort !== null) {
    const proxy = await startUiProxy(opts.temporalUiPort, uiPort);
    procs.push({ stop: () => proxy.close() });
  }
  return { address };
}

export async function startEngines(opts: EngineOptions): Promise<Engines> {
  const logs = join(opts.stateDir, 'logs');
  mkdirSync(logs, { recursive: true });
  const procs: Stoppable[] = [];
  const engines: Engines = {
    stop: async () => {
      await Promise.all(procs.map((p) => p.stop()));
    },
  };
  try {
    // allSettled: when one engine fails, the other has finished starting before both are stopped.
    const [temporalResult, mongoResult] = await Promise.allSettled([
      opts.startTemporal ? startTemporal(opts, logs, procs) : undefined,
      opts.startMongo ? startStore(opts, logs, procs) : undefined,
    ]);
    for (const r of [temporalResult, mongoResult]) if (r.status === 'rejected') throw r.reason;
    const temporal = temporalResult.status === 'fulfilled' ? temporalResult.value : undefined;
    const mongo = mongoResult.status === 'fulfilled' ? mongoResult.value : undefined;
    if (temporal) {
      engines.temporalAddress = temporal.address;
      // localhost, not 127.0.0.1: the same site as the API's default http://localhost:8080, so the UI's calls
      // to the codec server carry the platform's session cookie (SameSite=Lax).
      if (opts.temporalUiPort !== null) engines.temporalUiUrl = `http://localhost:${opts.temporalUiPort}`;
      opts.log(`Temporal dev server ready at ${temporal.address}${engines.temporalUiUrl ? `, Web UI ${engines.temporalUiUrl}` : ''}`);
    }
    if (mongo) {
      engines.storeUri = mongo.uri;
      engines.storeEngine = mongo.engine;
      engines.storePid = mongo.pid;
      opts.log(`store (${mongo.engine}) ready at ${mongo.uri}`);
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
  chmodSync(stateDir, 0o711); // traversable by the postgres user that PostgreSQL runs as under root
  const engines = await startEngines({
    devDir: resolve(process.env.PLATFORM_DEV_DIR ?? '.dev'),
    stateDir,
    temporalPort: await freePort(),
    temporalUiPort: null,
    mongoPort: await freePort(),
    startTemporal: true,
    startMongo: true,
    log,
    ephemeral: true,
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
