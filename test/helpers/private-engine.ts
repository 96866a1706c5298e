// A store engine of a test file's own (the embedded one npm start runs: PostgreSQL, or what
// EMBEDDED_STORE names), for tests that pause it, restart it or load it hard without touching the
// engine the other test files share. Its watchdog is on, as in npm start (STORE_WATCHDOG_MS, or the
// window a test gives).
import { chmodSync, mkdtempSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { freePort, processTree, startEngines, type Supervised } from '../../temporal-dev/engines.js';

export interface PrivateEngine {
  uri: string;
  stateDir: string;
  /** The store's server process (PostgreSQL's postmaster, FerretDB or mongod); a new one after each restart. */
  readonly pid: number;
  /** The supervised server: restarts, watchdog kills. */
  process: Supervised;
  /** Stops the whole server answering (SIGSTOP to it and every process it started); resume() undoes it. */
  pause(): void;
  resume(): void;
  stop(): Promise<void>;
}

export interface PrivateEngineOptions {
  /** The store watchdog's window in ms (0: off); default STORE_WATCHDOG_MS, else 20 s. */
  watchdogMs?: number;
}

/**
 * Starts an engine with its data in `stateDir` (a new folder under TEST_STATE_DIR when omitted). The
 * same stateDir again starts it on the data the previous one left.
 */
export async function startPrivateEngine(
  stateDir?: string,
  log: (line: string) => void = () => undefined,
  options: PrivateEngineOptions = {},
): Promise<PrivateEngine> {
  const base = process.env.TEST_STATE_DIR;
  if (!base) throw new Error('TEST_STATE_DIR is not set: run the suite with `npm test`');
  const dir = stateDir ?? mkdtempSync(join(base, 'engine-'));
  chmodSync(dir, 0o711); // traversable by the postgres user PostgreSQL runs as under root
  const mongoPort = await freePort();
  const engines = await startEngines({
    devDir: resolve(process.env.PLATFORM_DEV_DIR ?? '.dev'),
    stateDir: dir,
    temporalPort: 0,
    temporalUiPort: null,
    mongoPort,
    startTemporal: false,
    startMongo: true,
    log,
    ephemeral: true,
    ...(options.watchdogMs !== undefined ? { watchdog: { storeMs: options.watchdogMs } } : {}),
  });
  const server = engines.storeProcess!;
  let paused: number[] = [];
  return {
    uri: engines.storeUri!,
    stateDir: dir,
    get pid() {
      return server.pid!;
    },
    process: server,
    pause: () => {
      paused = processTree(server.pid!);
      for (const p of paused) process.kill(p, 'SIGSTOP');
    },
    resume: () => {
      // Some may be gone: killed by the watchdog meanwhile.
      for (const p of paused) {
        try {
          process.kill(p, 'SIGCONT');
        } catch {
          // gone
        }
      }
      paused = [];
    },
    stop: () => engines.stop(),
  };
}
