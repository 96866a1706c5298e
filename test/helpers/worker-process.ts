// The production worker entry point as its own process, so that a test can kill it without warning.
import { spawn, type ChildProcess } from 'node:child_process';
import { untilReady } from './processes.js';
import type { TestPlatform } from './platform.js';

export async function workerProcess(platform: TestPlatform, env: Record<string, string> = {}): Promise<ChildProcess> {
  const { config } = platform;
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main/worker.ts'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      STORE_URI: config.storeUri,
      MONGODB_DB: config.MONGODB_DB,
      TEMPORAL_ADDRESS: config.temporalAddress,
      TEMPORAL_TASK_QUEUE: config.TEMPORAL_TASK_QUEUE,
      TEMPORAL_WORKFLOW_BUNDLE: process.env.TEST_WORKFLOW_BUNDLE,
      PLATFORM_DEV_DIR: config.PLATFORM_DEV_DIR,
      MCP_OUTBOUND_LOOPBACK: String(config.outboundLoopback),
      EMBEDDINGS_MODEL_DIR: config.EMBEDDINGS_MODEL_DIR,
      ...env,
    },
  });
  await untilReady(child, '"worker running"', 'worker');
  return child;
}
