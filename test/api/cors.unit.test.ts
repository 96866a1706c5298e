// CORS without engines: the middleware in front of a route, as api/app.ts mounts it (after the
// problem renderer, before the router).
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import Koa from 'koa';
import { cors, corsAllowedHeaders, corsAllowedMethods, corsExposedHeaders } from '../../src/api/middleware/cors.js';
import { problemResponses } from '../../src/api/middleware/problems.js';
import { createLogger } from '../../src/kernel/logging/logger.js';

const apiOrigin = 'http://api.example:8080';
const listed = 'https://app.example';
let server: Server;
let base: string;

before(async () => {
  const app = new Koa();
  app.context.services = { config: { apiUri: `${apiOrigin}/v1`, mcpAllowedOrigins: [listed] }, logger: createLogger('silent') };
  app.use(problemResponses as unknown as Koa.Middleware);
  app.use(cors as unknown as Koa.Middleware);
  app.use((ctx) => {
    if (ctx.method === 'OPTIONS') {
      ctx.status = 200;
      ctx.set('Allow', 'POST');
      return;
    }
    ctx.status = 401;
    ctx.set('WWW-Authenticate', 'Bearer resource_metadata="x"');
    ctx.body = { reached: true };
  });
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

const preflight = (origin: string) =>
  fetch(`${base}/mcp`, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
  });

describe('CORS', () => {
  it("answers a preflight from a listed origin and from the API's own, without reaching a route", async () => {
    for (const origin of [listed, apiOrigin]) {
      const res = await preflight(origin);
      assert.equal(res.status, 204, origin);
      assert.equal(res.headers.get('access-control-allow-origin'), origin);
      assert.deepEqual(res.headers.get('access-control-allow-methods')!.split(', '), corsAllowedMethods);
      assert.deepEqual(res.headers.get('access-control-allow-headers')!.split(', '), corsAllowedHeaders);
      assert.ok(corsAllowedHeaders.includes('Mcp-Protocol-Version') && corsAllowedHeaders.includes('X-On-Behalf-Of'));
      assert.match(res.headers.get('access-control-max-age')!, /^\d+$/);
      assert.match(res.headers.get('vary')!, /origin/i);
      assert.equal(res.headers.get('access-control-allow-credentials'), null, 'bearer tokens, no cookies');
      assert.equal(res.headers.get('allow'), null, 'the route was not reached');
    }
  });

  it('lets a listed origin read the answer and the headers it needs, errors included', async () => {
    const res = await fetch(`${base}/mcp`, { method: 'POST', headers: { origin: listed } });
    assert.equal(res.status, 401);
    assert.equal(res.headers.get('access-control-allow-origin'), listed);
    assert.deepEqual(res.headers.get('access-control-expose-headers')!.split(', '), corsExposedHeaders);
    assert.ok(corsExposedHeaders.includes('WWW-Authenticate') && corsExposedHeaders.includes('ETag'));
    assert.match(res.headers.get('vary')!, /origin/i);
  });

  it('gives an unlisted origin no CORS headers, and its preflight a 403 problem naming the setting', async () => {
    const refused = await preflight('https://evil.example');
    assert.equal(refused.status, 403);
    assert.match(refused.headers.get('content-type')!, /^application\/problem\+json/);
    assert.match((await refused.json()).detail, /MCP_ALLOWED_ORIGINS/);
    assert.equal(refused.headers.get('access-control-allow-origin'), null);
    const res = await fetch(`${base}/mcp`, { method: 'POST', headers: { origin: 'https://evil.example' } });
    assert.equal((await res.json()).reached, true, 'what the route answers is its own business (/mcp refuses foreign origins)');
    for (const name of res.headers.keys()) assert.ok(!name.startsWith('access-control-'), name);
    assert.match(res.headers.get('vary')!, /origin/i, 'the answer still varies by Origin for caches');
  });

  it('leaves requests without an Origin (not a browser, or same-origin GET) as they were, but for Vary', async () => {
    const res = await fetch(`${base}/mcp`, { method: 'OPTIONS' });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('allow'), 'POST', 'a plain OPTIONS reaches the router');
    for (const name of res.headers.keys()) assert.ok(!name.startsWith('access-control-'), name);
  });
});
