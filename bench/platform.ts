// The whole platform for one benchmark: its own engines on free ports, the API, optionally a worker,
// and a signed-in administrator's headers. Every bench starts from here.
import { resolve } from 'node:path';
import { createApp } from '../src/api/app.js';
import { loadConfig, type Config } from '../src/kernel/config/env.js';
import { createLogger } from '../src/kernel/logging/logger.js';
import { bootstrap, closeServices, createServices } from '../src/main/services.js';
import type { Services } from '../src/operations/services.js';
import { createPlatformWorker } from '../src/main/temporal-worker.js';
import { freePort, startEphemeralEngines, type Engines } from '../temporal-dev/engines.js';

const password = 'bench password 1234';

export interface BenchPlatform {
  engines: Engines;
  config: Config;
  services: Services;
  url: string;
  /** A signed-in administrator's Authorization and JSON content type. */
  headers: Record<string, string>;
  close(): Promise<void>;
}

export const benchAdmin = { email: 'bench@example.test', password };

/**
 * The settings of a bench's platform on `engines` at `port`: the same for an in-process platform
 * (benchPlatform) and one run as separate processes (bench/processes.ts).
 */
/** The bench administrator's sign-in answer (its access_token) from the platform at `url`. */
export async function signInBenchAdmin(url: string): Promise<{ access_token: string }> {
  const res = await fetch(`${url}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(benchAdmin),
  });
  return (await res.json()) as { access_token: string };
}

export function platformSettings(
  name: string,
  engines: Engines & { stateDir: string },
  port: number,
  overrides: Record<string, string> = {},
): Record<string, string> {
  return {
    PORT: String(port),
    LOG_LEVEL: 'warn',
    STORE_URI: engines.storeUri!,
    MONGODB_DB: name.replace(/-/g, '_'),
    TEMPORAL_ADDRESS: engines.temporalAddress!,
    TEMPORAL_TASK_QUEUE: name,
    PLATFORM_ADMIN_EMAIL: 'bench@example.test',
    PLATFORM_ADMIN_PASSWORD: password,
    PLATFORM_DEV_DIR: engines.stateDir,
    EMBEDDINGS_MODEL_DIR: resolve('.dev', 'models', 'all-MiniLM-L6-v2'), // installed by scripts/install-model.sh
    // A benchmark drives one principal from one address far past any per-principal or per-IP budget.
    RATE_LIMIT_PER_MINUTE: '0',
    AUTH_RATE_LIMIT_PER_MINUTE: '0',
    ...overrides,
    // BENCH_CONFIG='{"EVENT_RELAY_INLINE":"false"}': a setting to compare against, for any benchmark.
    ...(process.env.BENCH_CONFIG ? (JSON.parse(process.env.BENCH_CONFIG) as Record<string, string>) : {}),
  };
}

export async function benchPlatform(
  name: string,
  overrides: Record<string, string> = {},
  options: {
    worker?: boolean;
    /** Fills the store before the platform starts (its search index is then built from it, as at a restart). */
    seed?: (services: Services) => Promise<void>;
  } = {},
): Promise<BenchPlatform> {
  const engines = await startEphemeralEngines(name, (line) => console.log(`[bench] ${line}`));
  const port = await freePort();
  const config = loadConfig(platformSettings(name, engines, port, overrides));
  const services = createServices(config, createLogger('warn'));
  try {
    await services.db.dropDatabase();
    if (options.seed) await options.seed(services);
    await bootstrap(services);
  } catch (err) {
    // A failed start (no model installed, say) must not leave the engines running.
    await closeServices(services);
    await engines.stop();
    throw err;
  }
  const server = createApp(services).listen(port, '127.0.0.1');
  const worker = options.worker === false ? null : await createPlatformWorker(config, services.db, services.logger);
  const running = worker?.worker.run();
  const url = `http://127.0.0.1:${port}`;
  const login = await signInBenchAdmin(url);
  return {
    engines,
    config,
    services,
    url,
    headers: { authorization: `Bearer ${login.access_token}`, 'content-type': 'application/json' },
    async close() {
      worker?.worker.shutdown();
      await running;
      await worker?.connection.close();
      await new Promise((r) => server.close(r));
      await closeServices(services);
      await engines.stop();
    },
  };
}

/** A database on the platform's store without the stores' deadlines or metrics: the baselines' raw driver. */
export function rawDatabase(services: Services, name: string): import('mongodb').Db {
  return services.store.db(name);
}
