// A second API replica as its own process (the production entry point), on the same database as a
// test platform: what one replica stores, the other must see.
import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from '../../temporal-dev/engines.js';
import type { TestPlatform } from './platform.js';
import { untilReady } from './processes.js';
import { adminEmail, adminPassword } from './platform.js';

export interface ApiProcess {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

export async function apiProcess(platform: TestPlatform, env: Record<string, string> = {}): Promise<ApiProcess> {
  const { config } = platform;
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main/api.ts'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: String(port),
      STORE_URI: config.storeUri,
      MONGODB_DB: config.MONGODB_DB,
      TEMPORAL_ADDRESS: config.temporalAddress,
      TEMPORAL_TASK_QUEUE: config.TEMPORAL_TASK_QUEUE,
      // The same development key-encryption key, so this replica opens the same signing keys.
      PLATFORM_DEV_DIR: config.PLATFORM_DEV_DIR,
      MCP_OUTBOUND_LOOPBACK: String(config.outboundLoopback),
      PLATFORM_ADMIN_EMAIL: adminEmail,
      PLATFORM_ADMIN_PASSWORD: adminPassword,
      EMBEDDINGS_PROVIDER: 'hashing',
      ...(config.CONSOLE_ASSETS_DIR ? { CONSOLE_ASSETS_DIR: config.CONSOLE_ASSETS_DIR } : {}),
      ...env,
    },
  });
  await untilReady(child, '"API listening"', 'API process');
  return {
    url: `http://127.0.0.1:${port}`,
    child,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
