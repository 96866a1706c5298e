import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createApp } from '../../src/api/app.js';
import { reportWorker } from '../../src/operations/readiness.js';
import { createLogger } from '../../src/kernel/logging/logger.js';
import { closeServices, createServices } from '../../src/main/services.js';
import type { Services } from '../../src/operations/services.js';
import { Api } from '../helpers/http.js';
import { startPlatform, testConfig, type TestPlatform } from '../helpers/platform.js';

let platform: TestPlatform;
before(async () => (platform = await startPlatform({}, { worker: false })));
after(() => platform.close());

/** An API of its own, its dependencies as `overrides` say (closed ports, to see readiness fail). */
async function withBrokenDependency(overrides: Record<string, string>, check: (api: Api, services: Services) => Promise<void>) {
  const services = createServices(testConfig(overrides), createLogger('silent'));
  const server = createApp(services).listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  try {
    await check(new Api(`http://127.0.0.1:${(server.address() as { port: number }).port}`), services);
  } finally {
    await new Promise((r) => server.close(r));
    await closeServices(services);
  }
}

describe('health and readiness', () => {
  it('reports the process up', async () => {
    const reply = await platform.api.get('/healthz');
    assert.equal(reply.status, 200);
    assert.deepEqual(reply.body, { status: 'ok' });
  });

  it('reports ready when MongoDB and Temporal answer', async () => {
    const reply = await platform.api.get('/readyz');
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual(reply.body.checks, { mongodb: 'up', temporal: 'up' });
  });

  it('answers 503 naming MongoDB when it is unreachable', async () => {
    await withBrokenDependency({ STORE_URI: 'mongodb://127.0.0.1:1/' }, async (api) => {
      const reply = await api.get('/readyz');
      assert.equal(reply.status, 503);
      assert.deepEqual(reply.body.checks, { mongodb: 'down', temporal: 'up' });
      assert.match(reply.body.detail, /mongodb/);
    });
  });

  it("in single-node mode, answers 503 naming the worker once the API's own worker has stopped", async () => {
    await withBrokenDependency({}, async (api, services) => {
      let running = true;
      reportWorker(services, () => running);
      assert.deepEqual((await api.get('/readyz')).body.checks, { mongodb: 'up', temporal: 'up', worker: 'up' });
      running = false;
      const reply = await api.get('/readyz');
      assert.equal(reply.status, 503);
      assert.deepEqual(reply.body.checks, { mongodb: 'up', temporal: 'up', worker: 'down' });
      assert.match(reply.body.detail, /worker/);
    });
  });

  it('answers 503 naming Temporal when it is unreachable', async () => {
    await withBrokenDependency({ TEMPORAL_ADDRESS: '127.0.0.1:1' }, async (api) => {
      const reply = await api.get('/readyz');
      assert.equal(reply.status, 503);
      assert.deepEqual(reply.body.checks, { mongodb: 'up', temporal: 'down' });
    });
  });
});
