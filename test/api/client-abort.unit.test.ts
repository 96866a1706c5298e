// Which failures are a client's hang-up (499), without engines: the problem renderer and the body reader
// as api/app.ts mounts them, and a raw socket that sends half a body and hangs up. Only the body reader's
// own 499 is one; a storage failure or a bug on a request whose client also hung up stays a 503 or 500
// (issue #30's review: they were logged at info as 499, hiding them).
import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import Koa from 'koa';
import type { AppContext } from '../../src/api/context.js';
import { readBody } from '../../src/api/middleware/body.js';
import { problemResponses } from '../../src/api/middleware/problems.js';
import { createLogger } from '../../src/kernel/logging/logger.js';
import { StorageUnavailableError } from '../../src/store/deadline.js';

let server: Server;
let port: number;
/** The status each path's request ended with, as the request log sees it (outside the problem renderer). */
const ended = new Map<string, (status: number) => void>();
/** Resolved when a handler has started, so the client hangs up only then. */
const reached = new Map<string, () => void>();

/** Waits until the client has hung up on this request, whose body it never sent whole. */
async function hungUp(ctx: AppContext): Promise<void> {
  // Not events.once: the request's own `aborted` error would reject it; a handler that waits sees only the close.
  const closed = new Promise<void>((resolve) => (ctx.req.destroyed ? resolve() : ctx.req.once('close', () => resolve())));
  reached.get(ctx.path)?.();
  await closed;
  assert.equal(ctx.req.complete, false);
}

before(async () => {
  const app = new Koa();
  app.silent = true; // the hang-ups' parse errors are expected
  app.context.services = { logger: createLogger('silent') } as never;
  app.use(async (ctx, next) => {
    await next();
    ended.get(ctx.path)?.(ctx.status);
  });
  app.use(problemResponses as unknown as Koa.Middleware);
  app.use(async (ctx) => {
    const c = ctx as unknown as AppContext;
    if (ctx.path === '/body') {
      reached.get(ctx.path)?.();
      await readBody(c, 'json', 1024 * 1024);
      return;
    }
    await hungUp(c);
    if (ctx.path === '/storage') throw new StorageUnavailableError('the store did not answer');
    throw new Error('a bug');
  });
  server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  port = (server.address() as AddressInfo).port;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Sends a POST's headers and half its declared body, hangs up once the handler runs; the status the server ended it with. */
async function halfBody(path: string): Promise<number> {
  const status = new Promise<number>((resolve) => ended.set(path, resolve));
  const handling = new Promise<void>((resolve) => reached.set(path, resolve));
  const body = JSON.stringify({ text: 'x'.repeat(200) });
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${body.length}\r\n\r\n${body.slice(0, body.length / 2)}`,
  );
  await handling;
  socket.destroy();
  return status;
}

describe('a client that hangs up mid-body', () => {
  it('is 499 when the body reader sees it', async () => {
    assert.equal(await halfBody('/body'), 499);
  });

  it('does not hide a storage failure on that request: 503', async () => {
    assert.equal(await halfBody('/storage'), 503);
  });

  it('does not hide a bug on that request: 500', async () => {
    assert.equal(await halfBody('/bug'), 500);
  });
});
