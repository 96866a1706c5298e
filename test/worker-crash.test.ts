import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { eventually, type Api } from './helpers/http.js';
import { startPlatform, type TestPlatform } from './helpers/platform.js';

let platform: TestPlatform;
let admin: Api;
before(async () => {
  platform = await startPlatform({}, { worker: false });
  admin = await platform.admin();
});
after(() => platform.close());

/** The production worker entry point, as its own process, so it can be killed without warning. */
async function workerProcess(): Promise<ChildProcess> {
  const { config } = platform;
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main/worker.ts'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      MONGODB_URI: config.mongodbUri,
      MONGODB_DB: config.MONGODB_DB,
      TEMPORAL_ADDRESS: config.temporalAddress,
      TEMPORAL_TASK_QUEUE: config.TEMPORAL_TASK_QUEUE,
      TEMPORAL_WORKFLOW_BUNDLE: process.env.TEST_WORKFLOW_BUNDLE,
      PLATFORM_DEV_DIR: config.PLATFORM_DEV_DIR,
      EMBEDDINGS_MODEL_DIR: config.EMBEDDINGS_MODEL_DIR,
    },
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      output += d;
      if (output.includes('"worker running"')) resolve();
    });
    child.stderr!.on('data', (d) => (output += d));
    child.once('exit', (code) => reject(new Error(`worker exited with ${code}: ${output}`)));
  });
  child.removeAllListeners('exit');
  return child;
}

describe('a worker killed while events flow', () => {
  it('loses no event once a worker is back', async () => {
    const ws = (await admin.post('/workspaces', { name: 'crash' })).body.id;
    let worker = await workerProcess();
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) {
      const reply = await admin.post('/artifacts', { title: `e${i}`, content_type: 'text/plain', content: 'x', collection_id: ws });
      assert.equal(reply.status, 201);
      ids.push(reply.body.id);
      if (i === 12) worker.kill('SIGKILL');
    }
    worker = await workerProcess();
    try {
      await eventually(
        async () => (await platform.services.db.collection('events').countDocuments({ workspace_id: ws })) === 30,
        60_000,
        'all 30 events recorded',
      );
      const recorded = await platform.services.db.collection('events').find({ workspace_id: ws }).toArray();
      assert.deepEqual(new Set(recorded.map((e) => e.artifact_id)), new Set(ids));
    } finally {
      worker.kill('SIGTERM');
    }
  });
});
