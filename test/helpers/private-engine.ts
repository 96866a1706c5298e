// A MongoDB-wire engine of a test file's own (the embedded one npm start runs: FerretDB on PostgreSQL,
// or mongod when on PATH), for tests that pause it, restart it or load it hard without touching the
// engine the other test files share.
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chmodSync } from 'node:fs';
import { freePort, startEngines } from '../../temporal-dev/engines.js';

export interface PrivateEngine {
  uri: string;
  stateDir: string;
  /** The process that speaks the wire protocol (FerretDB or mongod). */
  pid: number;
  stop(): Promise<void>;
}

/** The pid of the process whose command line names `--listen-addr=127.0.0.1:<port>` (FerretDB) or `--port <port>` (mongod). */
function enginePid(port: number): number {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let args: string[];
    try {
      args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
    } catch {
      continue; // gone meanwhile
    }
    const ferret = args.includes(`--listen-addr=127.0.0.1:${port}`);
    const mongod = args.some((a, i) => a === '--port' && args[i + 1] === String(port)) && args.some((a) => a.endsWith('mongod'));
    if (ferret || mongod) return Number(entry);
  }
  throw new Error(`no engine process listens on port ${port}`);
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
  return { uri: engines.mongodbUri!, stateDir: dir, pid: enginePid(mongoPort), stop: () => engines.stop() };
}
