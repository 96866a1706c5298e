// Starts the real platform in-process for one test file: the API on a free port and a Temporal worker,
// against the engines test/run.ts started, in a database and task queue of the file's own.
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import type { Server } from 'node:http';
import { join, resolve } from 'node:path';
import { Writable } from 'node:stream';
import type { PlatformWorker } from '../../src/main/temporal-worker.js';
import { createApp } from '../../src/api/app.js';
import { loadConfig, type Config } from '../../src/kernel/config/env.js';
import { createLogger } from '../../src/kernel/logging/logger.js';
import { bootstrap, closeServices, createServices } from '../../src/main/services.js';
import type { Services } from '../../src/operations/services.js';
import { createPlatformWorker } from '../../src/main/temporal-worker.js';
import { freePort } from '../../temporal-dev/engines.js';
import { Api } from './http.js';

export const adminEmail = 'admin@example.test';
export const adminPassword = 'correct horse battery staple';

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the suite with \`npm test\`, which starts the engines`);
  return value;
}

export function testConfig(overrides: Record<string, string> = {}): Config {
  const id = randomBytes(4).toString('hex');
  return loadConfig({
    PLATFORM_ENV: 'development',
    PORT: '0',
    LOG_LEVEL: 'info',
    STORE_URI: required('TEST_STORE_URI'),
    MONGODB_DB: `test_${id}`,
    TEMPORAL_ADDRESS: required('TEST_TEMPORAL_ADDRESS'),
    TEMPORAL_TASK_QUEUE: `test-${id}`,
    PLATFORM_ADMIN_EMAIL: adminEmail,
    PLATFORM_ADMIN_PASSWORD: adminPassword,
    PLATFORM_DEV_DIR: mkdtempSync(join(required('TEST_STATE_DIR'), 'platform-')),
    // The model installed for the repository (scripts/install-model.sh), not one per test.
    EMBEDDINGS_MODEL_DIR: resolve(process.env.PLATFORM_DEV_DIR ?? '.dev', 'models', 'all-MiniLM-L6-v2'),
    // The shipped stdio catalog plus the tests' own entries, as an operator adds theirs.
    STDIO_CATALOG_PATHS: 'config/stdio-catalog.json,test/fixtures/stdio-catalog.json',
    // Outbound calls as production judges them (a test that reaches its own loopback servers lists them
    // in MCP_OUTBOUND_ALLOW); test/net/outbound-loopback.test.ts and the README's test unset this to get
    // the development default, loopback allowed (issue #37).
    MCP_OUTBOUND_LOOPBACK: 'false',
    // The web console test/run.ts built once; unset (a file run on its own), the API builds its own.
    ...(process.env.TEST_CONSOLE_ASSETS_DIR ? { CONSOLE_ASSETS_DIR: process.env.TEST_CONSOLE_ASSETS_DIR } : {}),
    ...overrides,
  });
}

export interface TestPlatform {
  url: string;
  config: Config;
  services: Services;
  /** Every log line the platform wrote, as text. */
  logs: string[];
  api: Api;
  /** An Api client signed in as the bootstrap admin. */
  admin(): Promise<Api>;
  /** A new non-admin user, signed in. */
  newUser(): Promise<Api & { userId: string }>;
  startWorker(): Promise<void>;
  stopWorker(): Promise<void>;
  close(): Promise<void>;
}

export async function startPlatform(overrides: Record<string, string> = {}, options: { worker?: boolean } = {}): Promise<TestPlatform> {
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      logs.push(String(chunk));
      done();
    },
  });
  const port = await freePort();
  const config = testConfig({ PORT: String(port), ...overrides });
  const services = createServices(config, createLogger(config.LOG_LEVEL, sink));
  try {
    await bootstrap(services);
  } catch (err) {
    await closeServices(services); // or the open connections keep the test process alive
    throw err;
  }
  const server: Server = createApp(services).listen(config.PORT, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const url = `http://127.0.0.1:${config.PORT}`; // an overridden PORT is honoured

  let running: { worker: PlatformWorker['worker']; done: Promise<void>; close: () => Promise<void> } | undefined;
  const platform: TestPlatform = {
    url,
    config,
    services,
    logs,
    api: new Api(url),
    async admin() {
      return new Api(url).login(adminEmail, adminPassword);
    },
    async newUser() {
      const admin = await platform.admin();
      const email = `user-${randomBytes(4).toString('hex')}@example.test`;
      const password = randomBytes(12).toString('hex');
      const created = await admin.post('/users', { email, password });
      if (created.status !== 201) throw new Error(`could not create a user: ${created.status}`);
      const api = await new Api(url).login(email, password);
      return Object.assign(api, { userId: created.body.id as string });
    },
    async startWorker() {
      if (running) return;
      const { worker, connection } = await createPlatformWorker(services.config, services.db, services.logger, {
        codePath: required('TEST_WORKFLOW_BUNDLE'),
      });
      const done = worker.run();
      running = { worker, done, close: () => connection.close() };
    },
    async stopWorker() {
      if (!running) return;
      running.worker.shutdown();
      await running.done;
      await running.close();
      running = undefined;
    },
    async close() {
      await platform.stopWorker();
      await new Promise((r) => server.close(r));
      await services.db.dropDatabase().catch(() => undefined);
      await closeServices(services);
    },
  };
  if (options.worker !== false) await platform.startWorker();
  return platform;
}
