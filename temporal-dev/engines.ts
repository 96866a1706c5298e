// Starts the embedded engines (Temporal dev server, the store) installed by install.sh, waits until
// each answers, and stops them. Used by `npm start`, `npm test` and `npm run bench`.
// The store is PostgreSQL itself by default (its own cluster under <stateDir>/postgres; the platform's
// embedded store implementation, src/store/postgres, speaks to it), or with EMBEDDED_STORE a
// MongoDB-wire server: `ferretdb` (FerretDB 1.24 on that PostgreSQL), `ferretdb-sqlite`, `mongod` (on
// PATH). An engine that dies after it was ready is restarted (with backoff), and the log says so. An
// engine that stays alive but stops answering (wedged, stalled) is found by its watchdog, a real call
// through a fresh connection every few seconds, and after STORE_WATCHDOG_MS (TEMPORAL_WATCHDOG_MS for
// the Temporal dev server) without an answer it is killed hard, its whole process tree, and restarted.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, createWriteStream, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Connection } from '@temporalio/client';
import { MongoClient } from 'mongodb';
import pg from 'pg';
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
  /** The watchdogs' windows (ms without an answer before a kill; 0: no watchdog); default from the environment, see watchdogWindows(). */
  watchdog?: Partial<WatchdogWindows>;
}

export interface WatchdogWindows {
  /** The store (PostgreSQL, and FerretDB or mongod when that is the store): STORE_WATCHDOG_MS, default 20 s. */
  storeMs: number;
  /** The Temporal dev server: TEMPORAL_WATCHDOG_MS, default 30 s. */
  temporalMs: number;
}

/** How long each engine may go without answering its watchdog's probe before it is killed and restarted; 0 turns a watchdog off. */
export function watchdogWindows(env: NodeJS.ProcessEnv = process.env): WatchdogWindows {
  const read = (name: string, fallback: number) => {
    const raw = env[name]?.trim();
    if (!raw) return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < 0)
      throw new Error(`${name} must be a whole number of milliseconds (0 turns the watchdog off), not ${JSON.stringify(raw)}`);
    return value;
  };
  return { storeMs: read('STORE_WATCHDOG_MS', 20_000), temporalMs: read('TEMPORAL_WATCHDOG_MS', 30_000) };
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
  /** The Temporal dev server's process (supervised, watched); its pid changes when it is restarted. */
  temporalProcess?: Supervised;
  temporalUiUrl?: string;
  /** The store's URI: postgres:// (the embedded store) or mongodb:// (a MongoDB-wire server). */
  storeUri?: string;
  storeEngine?: EmbeddedStore;
  /**
   * The store's server process (the postmaster, FerretDB or mongod): tests pause it. Its pid changes
   * when it is restarted.
   */
  storeProcess?: Supervised;
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

/** A process and every process it started, parents first (PostgreSQL runs a process per connection). */
export function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const ppid = Number(/^PPid:\s+(\d+)/m.exec(readFileSync(`/proc/${entry}/status`, 'utf8'))?.[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  const out: number[] = [];
  const walk = (pid: number) => {
    out.push(pid);
    for (const child of children.get(pid) ?? []) walk(child);
  };
  walk(root);
  return out;
}

/** `promise`, or a rejection once `ms` have passed. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  promise.catch(() => undefined); // a probe that loses the race may still fail later: not an unhandled rejection
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms`)), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export interface WatchdogOptions {
  /** A real call through a fresh connection; it must give up by itself after `timeoutMs` (it is also raced against it). */
  probe: (timeoutMs: number) => Promise<unknown>;
  /** How long it may go without answering before it is killed (and restarted). */
  windowMs: number;
  /** After a start or restart, how long it may take to answer its first probe. */
  startMs: number;
}

interface SuperviseOptions {
  /** Restart the process when it dies after it was ready (npm start, tests), logging each restart. */
  log?: (line: string) => void;
  /** Signal that stops it cleanly (PostgreSQL: SIGINT, a fast shutdown). */
  stopSignal?: NodeJS.Signals;
  uid?: number;
  gid?: number;
  cwd?: string;
  /** Once ready, probe it; one that stays alive without answering for the window is killed and restarted. Needs `log`. */
  watchdog?: WatchdogOptions;
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
  /** Kills by the watchdog (each followed by a restart). */
  watchdogKills = 0;
  private watchdogTimer: NodeJS.Timeout | undefined;
  /** Probes failed in a row since the last answer. */
  private failedProbes = 0;
  /** Whether it answered a probe since it was (re)started. */
  private answeredSinceLaunch = false;

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
    // The watchdog counts failures only once this run has answered (PostgreSQL replays its log first).
    this.answeredSinceLaunch = false;
    this.failedProbes = 0;
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
    // `close` waits for every holder of its output pipes; a process it started that survived it (one
    // a kill could not end yet) must not keep it from being seen dead and restarted.
    child.once('exit', () =>
      setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
      }, 5000).unref(),
    );
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

  /** Called once it answered: from then on a death is restarted (when a log was given), and the watchdog probes it. */
  markReady(): void {
    if (this.ready) return;
    this.ready = true;
    this.answeredSinceLaunch = true;
    const dog = this.opts.watchdog;
    if (dog && dog.windowMs > 0 && this.opts.log) {
      const everyMs = watchdogPeriod(dog.windowMs);
      this.opts.log(
        `${this.name}: watchdog on (a probe every ${everyMs} ms; killed and restarted after ${Math.ceil(dog.windowMs / everyMs)} failed in a row)`,
      );
      this.scheduleProbe(everyMs);
    }
  }

  private scheduleProbe(delayMs: number): void {
    if (this.stopping) return;
    this.watchdogTimer = setTimeout(() => void this.runProbe(), delayMs);
    this.watchdogTimer.unref();
  }

  /**
   * One watchdog round: a probe with its own deadline. A process that is alive and fails `windowMs /
   * period` probes in a row (or, just (re)started, does not answer within `startMs`) is killed, its
   * whole tree, and the exit handler restarts it. While it is dead or restarting nothing is counted.
   */
  private async runProbe(): Promise<void> {
    const dog = this.opts.watchdog!;
    const log = this.opts.log!;
    const everyMs = watchdogPeriod(dog.windowMs);
    const started = Date.now();
    const launch = this.startedAt;
    let failure: string | undefined;
    try {
      await within(dog.probe(everyMs), everyMs, 'probe');
    } catch (err) {
      failure = (err as Error)?.message ?? String(err);
    }
    if (this.stopping) return;
    // Died or restarted while the probe ran: this round says nothing about the process now running.
    if (this.exited || launch !== this.startedAt) {
      this.scheduleProbe(everyMs);
      return;
    }
    if (failure === undefined) {
      if (!this.answeredSinceLaunch)
        log(`${this.name} answers again (pid ${this.child.pid}, ${Date.now() - this.startedAt} ms after its start)`);
      else if (this.failedProbes > 0) log(`${this.name} answers again after ${this.failedProbes} failed probe(s)`);
      this.answeredSinceLaunch = true;
      this.failedProbes = 0;
    } else if (!this.answeredSinceLaunch) {
      // Just (re)started: PostgreSQL replays its log first. Only a start that takes too long is a wedge.
      const sinceStart = Date.now() - this.startedAt;
      if (sinceStart > dog.startMs) {
        log(`${this.name} watchdog: no answer ${sinceStart} ms after its start (${failure}); killing it (pid ${this.child.pid})`);
        this.watchdogKill();
      }
    } else {
      this.failedProbes++;
      const limit = Math.ceil(dog.windowMs / everyMs);
      log(`${this.name} watchdog: probe ${this.failedProbes}/${limit} failed (${failure})`);
      if (this.failedProbes >= limit) {
        log(
          `${this.name} watchdog: alive (pid ${this.child.pid}) but answered no probe for ${this.failedProbes} in a row; killing it and its processes (SIGKILL) to restart it`,
        );
        this.watchdogKill();
      }
    }
    this.scheduleProbe(Math.max(0, everyMs - (Date.now() - started)));
  }

  private watchdogKill(): void {
    this.watchdogKills++;
    this.failedProbes = 0;
    this.answeredSinceLaunch = false;
    this.killTree();
  }

  /**
   * SIGKILL to the process and every process it started (PostgreSQL's backends hold its shared memory
   * and our log pipe: one left behind, stopped or wedged, keeps a restart from starting). The root is
   * stopped first, so it cannot start another child while the tree is read; SIGKILL ends a stopped
   * process too, no SIGCONT needed.
   */
  killTree(): void {
    const root = this.child.pid;
    if (root === undefined || this.exited) return;
    try {
      process.kill(root, 'SIGSTOP');
    } catch {
      return; // already gone
    }
    for (const pid of processTree(root)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    }
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
    if (this.watchdogTimer) clearTimeout(this.watchdogTimer);
    if (this.exited) return;
    const child = this.child;
    const done = new Promise<void>((r) => child.once('close', () => r()));
    child.kill(this.opts.stopSignal ?? 'SIGTERM');
    // Not stopped in time (wedged, or paused by a test): the whole tree, since a child left stopped
    // would hold the log pipe open and `close` would never come.
    const timer = setTimeout(() => this.killTree(), 8000);
    await done;
    clearTimeout(timer);
  }
}

/** How often a watchdog probes, and each probe's deadline: a quarter of its window, between 250 ms and 5 s. */
export function watchdogPeriod(windowMs: number): number {
  return Math.min(5000, Math.max(250, Math.round(windowMs / 4)));
}

/** PostgreSQL answers a real query through a fresh connection (pg_isready only sees the postmaster accept). */
async function probePostgres(url: string, timeoutMs: number): Promise<void> {
  const client = new pg.Client({
    connectionString: url,
    connectionTimeoutMillis: timeoutMs,
    query_timeout: timeoutMs,
    statement_timeout: timeoutMs,
    application_name: 'platform-watchdog',
  });
  client.on('error', () => undefined); // the server going away while we wait: the query's own failure says so
  try {
    await client.connect();
    await client.query('select count(*) from pg_catalog.pg_database');
  } catch (err) {
    // Too many connections is an answer: the server runs (its clients are the platform's business).
    if ((err as { code?: string }).code === '53300') return;
    throw err;
  } finally {
    // end() waits for the server; a stalled one never answers, so the socket is simply dropped.
    (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
  }
}

/** A MongoDB-wire server answers a real read (FerretDB answers pings before it can reach its backend). */
async function probeMongo(uri: string, timeoutMs: number): Promise<void> {
  const client = new MongoClient(uri, {
    serverSelectionTimeoutMS: timeoutMs,
    connectTimeoutMS: timeoutMs,
    socketTimeoutMS: timeoutMs,
    maxPoolSize: 1,
  });
  try {
    await client.db('admin').command({ listDatabases: 1, nameOnly: true, maxTimeMS: timeoutMs });
  } finally {
    void client.close(true).catch(() => undefined);
  }
}

/** The Temporal dev server answers a call through a fresh connection. */
async function probeTemporal(address: string, timeoutMs: number): Promise<void> {
  const connection = await Connection.connect({ address, connectTimeout: timeoutMs });
  try {
    await connection.withDeadline(Date.now() + timeoutMs, () => connection.workflowService.describeNamespace({ namespace: 'default' }));
  } finally {
    void connection.close().catch(() => undefined);
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

/** The watchdogs' windows: the options', else the environment's. */
function windows(opts: EngineOptions): WatchdogWindows {
  return { ...watchdogWindows(), ...opts.watchdog };
}

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
): Promise<{ url: string; socketDir: string; proc: Supervised }> {
  const missing = () =>
    new Error(
      'PostgreSQL is not installed (no initdb/postgres on PATH or under /usr/lib/postgresql): run temporal-dev/install.sh as root, ' +
        'or `sudo apt-get install -y postgresql`; or set STORE_URI to a real MongoDB or PostgreSQL',
    );
  const initdb = postgresBinary('initdb');
  const postgres = postgresBinary('postgres');
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
  // Each store database (and each FerretDB database) is a schema in the `postgres` database.
  const url = `postgres://postgres@localhost/postgres?host=${encodeURIComponent(socketDir)}&port=5432`;
  const proc = new Supervised('PostgreSQL', postgres, args, join(logs, 'postgresql.log'), {
    log: opts.log,
    stopSignal: 'SIGINT',
    uid: ids?.uid,
    gid: ids?.gid,
    cwd: base,
    watchdog: { probe: (ms) => probePostgres(url, ms), windowMs: windows(opts).storeMs, startMs: 60_000 },
  });
  procs.push(proc);
  // Ready: a real query answers (the watchdog's own probe), not just the postmaster accepting connections.
  await waitFor(proc, () => probePostgres(url, 2000), 60_000);
  return { url, socketDir, proc };
}

async function startStore(
  opts: EngineOptions,
  logs: string,
  procs: Stoppable[],
): Promise<{ uri: string; engine: EmbeddedStore; proc: Supervised }> {
  const engine = process.env.EMBEDDED_STORE?.trim() ? embeddedStore() : onPath('mongod') ? 'mongod' : embeddedStore();
  if (engine === 'postgresql') {
    const pg = await startPostgres(opts, logs, procs);
    return { uri: pg.url, engine, proc: pg.proc };
  }
  const dataDir = join(opts.stateDir, 'mongo');
  mkdirSync(dataDir, { recursive: true });
  const uri = `mongodb://127.0.0.1:${opts.mongoPort}/`;
  const watchdog: WatchdogOptions = { probe: (ms) => probeMongo(uri, ms), windowMs: windows(opts).storeMs, startMs: 60_000 };
  let proc: Supervised;
  if (engine === 'mongod') {
    proc = new Supervised(
      'mongod',
      'mongod',
      ['--dbpath', dataDir, '--port', String(opts.mongoPort), '--bind_ip', '127.0.0.1'],
      join(logs, 'mongod.log'),
      { log: opts.log, watchdog },
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
      { log: opts.log, watchdog },
    );
  }
  procs.push(proc); // registered before it is ready, so a failed start still stops it
  // A real read through a fresh client each attempt (probeMongo). One client kept across attempts
  // ended a CI run's 60 s wait with "Topology is closed": a client whose connecting failed can stay
  // closed for every later attempt.
  await waitFor(proc, () => probeMongo(uri, 2000), 60_000);
  return { uri, engine, proc };
}

/** The Web UI's codec server: payloads are sealed by the platform's codec, and the UI shows them decoded through it. */
function uiCodecEndpoint(opts: EngineOptions): string | undefined {
  return opts.uiCodecEndpoint ?? (process.env.TEMPORAL_UI_CODEC_ENDPOINT?.trim() || undefined);
}

async function startTemporal(opts: EngineOptions, logs: string, procs: Stoppable[]): Promise<{ address: string; proc: Supervised }> {
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
  const proc = new Supervised('Temporal dev server', bin, args, join(logs, 'temporal.log'), {
    log: opts.log,
    watchdog: { probe: (ms) => probeTemporal(address, ms), windowMs: windows(opts).temporalMs, startMs: 90_000 },
  });
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
  return { address, proc };
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
      engines.temporalProcess = temporal.proc;
      // localhost, not 127.0.0.1: the same site as the API's default http://localhost:8080, so the UI's calls
      // to the codec server carry the platform's session cookie (SameSite=Lax).
      if (opts.temporalUiPort !== null) engines.temporalUiUrl = `http://localhost:${opts.temporalUiPort}`;
      opts.log(`Temporal dev server ready at ${temporal.address}${engines.temporalUiUrl ? `, Web UI ${engines.temporalUiUrl}` : ''}`);
    }
    if (mongo) {
      engines.storeUri = mongo.uri;
      engines.storeEngine = mongo.engine;
      engines.storeProcess = mongo.proc;
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
