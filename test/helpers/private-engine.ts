// A store engine of a test file's own (the embedded one npm start runs: PostgreSQL, or what
// EMBEDDED_STORE names), for tests that pause it, restart it or load it hard without touching the
// engine the other test files share.
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chmodSync } from 'node:fs';
import { freePort, startEngines } from '../../temporal-dev/engines.js';

export interface PrivateEngine {
  uri: string;
  stateDir: string;
  /** The store's server process (PostgreSQL's postmaster, FerretDB or mongod). */
  pid: number;
  /** Stops the whole server answering (SIGSTOP to it and every process it started); resume() undoes it. */
  pause(): void;
  resume(): void;
  stop(): Promise<void>;
}

/** The store's server and every process it started (PostgreSQL runs a process per connection). */
function processTree(root: number): number[] {
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

/**
 * Starts an engine with its data in `stateDir` (a new folder under TEST_STATE_DIR when omitted). The
 * same stateDir again starts it on the data the previous one left.
 */
export async function startPrivateEngine(stateDir?: string, log: (line: string) => void = () => undefined): Promise<PrivateEngine> {
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
  });
  const pid = engines.storePid!;
  let paused: number[] = [];
  return {
    uri: engines.storeUri!,
    stateDir: dir,
    pid,
    pause: () => {
      paused = processTree(pid);
      for (const p of paused) process.kill(p, 'SIGSTOP');
    },
    resume: () => {
      for (const p of paused) process.kill(p, 'SIGCONT');
      paused = [];
    },
    stop: () => engines.stop(),
  };
}
