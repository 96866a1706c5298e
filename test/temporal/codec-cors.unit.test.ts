// The codec server's CORS without engines: the middleware in front of a route, as the API mounts it on
// /codec/* (after the problem renderer, before the router), with the Temporal UI origin configured.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import Koa from 'koa';
import { codecCors, codecOrigins } from '../../src/api/middleware/codec-cors.js';
import { problemResponses } from '../../src/api/middleware/problems.js';
import { createLogger } from '../../src/kernel/logging/logger.js';

const ui = 'http://127.0.0.1:8233';
const apiOrigin = 'http://api.example:8080';
let server: Server;
let base: string;

before(async () => {
  const app = new Koa();
  app.context.services = {
    config: { apiUri: apiOrigin, mcpAllowedOrigins: ['https://mcp.example'], CODEC_ALLOWED_ORIGINS: ` ${ui}/ , https://temporal.example` },
    logger: createLogger('silent'),
  };
  app.use(problemResponses as unknown as Koa.Middleware);
  app.use(codecCors as unknown as Koa.Middleware);
  app.use((ctx) => {
    ctx.status = 401;
    ctx.body = { reached: true };
  });
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

const preflight = (origin: string) =>
  fetch(`${base}/codec/decode`, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization, authorization-extras, content-type, x-namespace',
    },
  });

describe('codec server CORS', () => {
  it('parses the configured origins exactly, without a trailing slash', () => {
    assert.deepEqual(codecOrigins(' http://a:1/, https://b ,,'), ['http://a:1', 'https://b']);
  });

  it('answers a preflight from the Temporal UI origin with the headers the UI sends', async () => {
    const res = await preflight(ui);
    assert.equal(res.status, 204);
    assert.equal(res.headers.get('access-control-allow-origin'), ui);
    assert.equal(res.headers.get('access-control-allow-methods'), 'POST, OPTIONS');
    assert.deepEqual(
      res.headers
        .get('access-control-allow-headers')!
        .split(', ')
        .map((h) => h.toLowerCase()),
      ['authorization', 'authorization-extras', 'content-type', 'x-namespace'],
    );
    assert.equal(res.headers.get('access-control-allow-credentials'), null, 'bearer tokens, not cookies');
    assert.match(res.headers.get('vary') ?? '', /Origin/);
  });

  it('gives any other origin no CORS header: its preflight is a 403 problem, its request reaches the route bare', async () => {
    for (const origin of ['https://evil.example', apiOrigin, 'https://mcp.example', 'null', 'http://127.0.0.1:8234']) {
      const res = await preflight(origin);
      assert.equal(res.status, 403, origin);
      assert.equal(res.headers.get('content-type'), 'application/problem+json');
      assert.equal((await res.json()).type, 'urn:platform:problem:forbidden');
      assert.equal(res.headers.get('access-control-allow-origin'), null, origin);
      const post = await fetch(`${base}/codec/decode`, { method: 'POST', headers: { origin } });
      assert.equal(post.status, 401);
      assert.equal(post.headers.get('access-control-allow-origin'), null, origin);
    }
  });

  it('allows credentials (the session cookie) under /codec/session/ only', async () => {
    const res = await fetch(`${base}/codec/session/decode`, {
      method: 'OPTIONS',
      headers: { origin: ui, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, x-namespace' },
    });
    assert.equal(res.status, 204);
    assert.equal(res.headers.get('access-control-allow-credentials'), 'true');
    const post = await fetch(`${base}/codec/session/decode`, { method: 'POST', headers: { origin: ui } });
    assert.equal(post.headers.get('access-control-allow-credentials'), 'true');
    assert.equal(post.headers.get('access-control-allow-origin'), ui);
    const foreign = await fetch(`${base}/codec/session/decode`, { method: 'POST', headers: { origin: 'https://evil.example' } });
    assert.equal(foreign.headers.get('access-control-allow-credentials'), null);
  });

  it('marks an allowed request readable by the UI, and leaves requests without Origin (the CLI) alone', async () => {
    const allowed = await fetch(`${base}/codec/decode`, { method: 'POST', headers: { origin: ui } });
    assert.equal(allowed.status, 401);
    assert.equal(allowed.headers.get('access-control-allow-origin'), ui);
    const cli = await fetch(`${base}/codec/decode`, { method: 'POST' });
    assert.equal(cli.status, 401);
    assert.equal(cli.headers.get('access-control-allow-origin'), null);
  });
});
