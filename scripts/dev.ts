// `npm start` (after scripts/start.sh has installed everything): engines, worker and API, as separate
// processes, as in production. Ctrl-C (or SIGTERM, or the parent going away) stops them all.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { delimiter, join, resolve } from 'node:path';
import { ConfigError, loadConfig } from '../src/kernel/config/env.js';
import { startEngines, type Engines } from '../temporal-dev/engines.js';
import { buildConsole } from '../src/console/build-console.js';
import { parseAddress } from '../src/observability/worker-metrics.js';
import { outboundLine } from '../src/net/allow-list.js';
import { codecLines, metricsLines, startEnv } from './start-settings.js';

const devDir = resolve(process.env.PLATFORM_DEV_DIR ?? '.dev');
// The runners that temporal-dev/install-mcp-servers.sh installed (uv, uvx) are found by stdio MCP
// servers after whatever the user's PATH already has.
// The development defaults (the metrics listeners on loopback) apply to every process started here.
const env: NodeJS.ProcessEnv = {
  ...process.env,
  ...startEnv(process.env),
  PATH: [process.env.PATH, join(devDir, 'bin')].filter(Boolean).join(delimiter),
};
const say = (line: string) => console.log(`[platform] ${line}`);

let stopping = false;
let engines: Engines | undefined;
const children: ChildProcess[] = [];

function child(name: string, script: string, extraEnv: Record<string, string>): ChildProcess {
  const proc = spawn(process.execPath, ['--import', 'tsx', script], { stdio: 'inherit', env: { ...env, ...extraEnv } });
  proc.once('exit', (code, signal) => {
    if (!stopping) {
      say(`${name} exited (${signal ?? code}); stopping everything`);
      void stop(1);
    }
  });
  children.push(proc);
  return proc;
}

async function stop(code: number): Promise<never> {
  stopping = true;
  const running = children.filter((c) => c.exitCode === null && c.signalCode === null);
  await Promise.all(
    running.map(
      (c) =>
        new Promise<void>((r) => {
          const kill = setTimeout(() => c.kill('SIGKILL'), 10_000); // a worker stuck retrying a gone server
          c.once('exit', () => (clearTimeout(kill), r()));
          c.kill('SIGTERM');
        }),
    ),
  );
  await engines?.stop();
  process.exit(code);
}
process.once('SIGINT', () => void stop(0));
process.once('SIGTERM', () => void stop(0));
// npm runs us under `sh -c`, which dies on SIGTERM without passing it on: stop when orphaned.
const parent = process.ppid;
setInterval(() => process.ppid !== parent && !stopping && void stop(0), 1000).unref();

function portFree(port: number, host: string): Promise<boolean> {
  return new Promise((done) => {
    const probe = createServer();
    probe.once('error', () => done(false));
    probe.listen(port, host, () => probe.close(() => done(true)));
  });
}

async function main(): Promise<void> {
  // Fail fast, before any engine starts, on what would make the API fail later.
  const config = loadConfig({ ...env, PLATFORM_DEV_DIR: devDir });
  if (!(await portFree(config.PORT, config.HOST))) throw new Error(`port ${config.PORT} is already in use (set PORT)`);
  for (const name of ['WORKER_METRICS_ADDRESS', 'TEMPORAL_METRICS_ADDRESS'] as const) {
    const address = config[name];
    if (!address) continue;
    const { host, port } = parseAddress(address);
    if (!(await portFree(port, host)))
      throw new Error(`${address} is already in use: set ${name} to another host:port, or to nothing to turn that metrics listener off`);
  }

  engines = await startEngines({
    devDir,
    stateDir: resolve(devDir, 'state'),
    temporalPort: Number(env.TEMPORAL_PORT ?? 7233),
    temporalUiPort: Number(env.TEMPORAL_UI_PORT ?? 8233),
    mongoPort: Number(env.MONGO_PORT ?? 27017),
    startTemporal: !env.TEMPORAL_ADDRESS,
    startMongo: !env.STORE_URI && !env.MONGODB_URI,
    log: say,
  });
  // The web console, built once per start (esbuild: well under a second) and served by the API from there.
  const web = await buildConsole(resolve(devDir, 'console'));
  const shared: Record<string, string> = { PLATFORM_DEV_DIR: devDir, CONSOLE_ASSETS_DIR: web.outDir };
  if (engines.temporalAddress) shared.TEMPORAL_ADDRESS = engines.temporalAddress;
  if (engines.storeUri) shared.STORE_URI = engines.storeUri;
  // Single-node mode (API_RUNS_WORKER=true): the API runs the worker itself.
  if (!config.API_RUNS_WORKER) child('worker', 'src/main/worker.ts', shared);
  child('API', 'src/main/api.ts', shared);

  for (let i = 0; i < 480 && !stopping; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${config.PORT}/readyz`)).ok) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  if (stopping) return;
  const ui = env.TEMPORAL_UI_URL ?? engines.temporalUiUrl;
  say(`API          ${config.apiUri}`);
  say(`MCP          ${config.apiUri}/mcp`);
  say(`Console      ${config.apiUri}/console/ (built in ${web.ms} ms)`);
  say(`Temporal UI  ${ui ?? '(external cluster: use its own UI)'}`);
  const codecEndpoint = env.TEMPORAL_UI_CODEC_ENDPOINT?.trim();
  if (engines.temporalUiUrl && codecEndpoint) for (const line of codecLines(codecEndpoint)) say(line);
  for (const line of metricsLines(config)) say(line);
  say(`Outbound     ${outboundLine(config)}`);
  say(
    env.PLATFORM_ADMIN_EMAIL && env.PLATFORM_ADMIN_PASSWORD
      ? `Admin        ${env.PLATFORM_ADMIN_EMAIL} (password from PLATFORM_ADMIN_PASSWORD)`
      : `Admin        credentials in ${resolve(devDir, 'admin-credentials.json')}`,
  );
  say('Ctrl-C stops everything.');
}

main().catch((err) => {
  console.error(err instanceof ConfigError ? err.message : `[platform] start failed: ${(err as Error).message}`);
  void stop(1);
});
