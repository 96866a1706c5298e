// The raw Koa + driver baseline (baseline.ts) as a process of its own, for a platform that runs as
// processes of its own (bench/processes.ts): each then has a process, and the bench's clients another.
// Reads the platform's settings from the environment; BASELINE_PORT is where it listens.
import { loadConfig } from '../src/kernel/config/env.js';
import { createLogger } from '../src/kernel/logging/logger.js';
import { closeServices, createServices } from '../src/main/services.js';
import { baselineServer } from './baseline.js';
import { rawDatabase } from './platform.js';

async function main(): Promise<void> {
  const services = createServices(loadConfig(), createLogger('warn'));
  const db = rawDatabase(services, 'bench_baseline');
  await db.dropDatabase();
  const server = await baselineServer(db, Number(process.env.BASELINE_PORT));
  console.log('baseline listening');
  process.once('SIGTERM', () => {
    server.close();
    void closeServices(services).then(() => process.exit(0));
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
