// `npm start` (after scripts/start.sh has installed everything): engines, worker and API, as separate
// processes, as in production. Ctrl-C stops them all.
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { startEngines, type Engines } from '../temporal-dev/engines.js';

const env = process.env;
const devDir = resolve(env.PLATFORM_DEV_DIR ?? '.dev');
const port = Number(env.PORT ?? 8080);
const say = (line: string) => console.log(`[platform] ${line}`);

function child(name: string, script: string, extraEnv: Record<string, string>): ChildProcess {
  const proc = spawn(process.execPath, ['--import', 'tsx', script], { stdio: 'inherit', env: { ...env, ...extraEnv } });
  proc.once('exit', (code, signal) => {
    if (!stopping) {
      say(`${name} exited (${signal ?? code}); stopping everything`);
      void stop(1);
    }
  });
  return proc;
}

let stopping = false;
let engines: Engines | undefined;
const children: ChildProcess[] = [];

async function stop(code: number): Promise<never> {
  stopping = true;
  const running = children.filter((c) => c.exitCode === null && c.signalCode === null);
  await Promise.all(running.map((c) => new Promise((r) => (c.once('exit', r), c.kill('SIGTERM')))));
  await engines?.stop();
  process.exit(code);
}
process.once('SIGINT', () => void stop(0));
process.once('SIGTERM', () => void stop(0));

async function main(): Promise<void> {
  engines = await startEngines({
    devDir,
    stateDir: resolve(devDir, 'state'),
    temporalPort: Number(env.TEMPORAL_PORT ?? 7233),
    temporalUiPort: Number(env.TEMPORAL_UI_PORT ?? 8233),
    mongoPort: Number(env.MONGO_PORT ?? 27017),
    startTemporal: !env.TEMPORAL_ADDRESS,
    startMongo: !env.MONGODB_URI,
    log: say,
  });
  const shared: Record<string, string> = { PLATFORM_DEV_DIR: devDir };
  if (engines.temporalAddress) shared.TEMPORAL_ADDRESS = engines.temporalAddress;
  if (engines.mongodbUri) shared.MONGODB_URI = engines.mongodbUri;
  children.push(child('worker', 'src/main/worker.ts', shared));
  children.push(child('API', 'src/main/api.ts', shared));

  const api = env.PLATFORM_API_URI ?? `http://localhost:${port}`;
  for (let i = 0; i < 240 && !stopping; i++) {
    try {
      if ((await fetch(`${api}/readyz`)).ok) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  const ui = env.TEMPORAL_UI_URL ?? engines.temporalUiUrl;
  say(`API          ${api}`);
  say(`MCP          ${api}/mcp`);
  say(`Temporal UI  ${ui ?? '(external cluster: use its own UI)'}`);
  say(
    env.PLATFORM_ADMIN_EMAIL
      ? `Admin        ${env.PLATFORM_ADMIN_EMAIL} (password from PLATFORM_ADMIN_PASSWORD)`
      : `Admin        credentials in ${resolve(devDir, 'admin-credentials.json')}`,
  );
  say('Ctrl-C stops everything.');
}

main().catch((err) => {
  console.error(`[platform] start failed: ${(err as Error).message}`);
  void stop(1);
});
