import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually, type Api } from '../helpers/http.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';
import { workerProcess } from '../helpers/worker-process.js';

let platform: TestPlatform;
let admin: Api;
before(async () => {
  platform = await startPlatform({}, { worker: false });
  admin = await platform.admin();
});
after(() => platform.close());

describe('a worker killed while events flow', () => {
  it('loses no event once a worker is back', async () => {
    const ws = (await admin.post('/workspaces', { name: 'crash' })).body.id;
    let worker = await workerProcess(platform);
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) {
      const reply = await admin.post('/artifacts', { title: `e${i}`, content_type: 'text/plain', content: 'x', collection_id: ws });
      assert.equal(reply.status, 201);
      ids.push(reply.body.id);
      if (i === 12) worker.kill('SIGKILL');
    }
    worker = await workerProcess(platform);
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
