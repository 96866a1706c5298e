import assert from 'node:assert/strict';
import dc from 'node:diagnostics_channel';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { after, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { addressChecker } from '../../src/net/addresses.js';
import {
  createOutbound,
  OutboundRefusedError,
  OutboundTimeoutError,
  OutboundTooLargeError,
  parseAllowList,
  readLimited,
  type Outbound,
  type OutboundPolicy,
} from '../../src/net/outbound.js';

// NETWORK RULE: these tests only ever connect to servers they start on 127.0.0.1. Every refusal test
// also proves that no socket was created (or no connection attempted) for the refused target.

/** Every TCP connection attempt made while the watcher is on: [ip, port]. */
const attempts: [string, number][] = [];
let socketsCreated = 0;
const onSocket = (message: unknown) => {
  socketsCreated++;
  const { socket } = message as { socket: Socket };
  socket.on('connectionAttempt', (ip: string, port: number) => attempts.push([ip, port]));
};
dc.subscribe('net.client.socket', onSocket);
after(() => dc.unsubscribe('net.client.socket', onSocket));

async function assertNoSocket(run: () => Promise<unknown>, check: (err: unknown) => boolean) {
  const before = socketsCreated;
  await assert.rejects(run(), check);
  assert.equal(socketsCreated, before, 'a socket was opened for a refused target');
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
const servers: { close(): void }[] = [];
async function serve(handler: Handler): Promise<{ url: string; port: number; hits: () => number }> {
  let hits = 0;
  const server = createServer((req, res) => {
    hits++;
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push({ close: () => (server.closeAllConnections(), server.close()) });
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, port, hits: () => hits };
}

const clients: Outbound[] = [];
function outbound(policy: Partial<OutboundPolicy> = {}): Outbound {
  const client = createOutbound({ allow: [], timeoutMs: 2000, maxResponseBytes: 64 * 1024, ...policy });
  clients.push(client);
  return client;
}
after(async () => {
  await Promise.all(clients.map((c) => c.close()));
  for (const s of servers) s.close();
});
const loopback = { allow: ['127.0.0.0/8', '::1/128'] };

const refused = (pattern: RegExp) => (err: unknown) =>
  err instanceof OutboundRefusedError && err.code === 'outbound_refused' && pattern.test(err.message);

const echo: Handler = (req, res) => {
  let body = '';
  req.on('data', (chunk: Buffer) => (body += chunk));
  req.on('end', () => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ method: req.method, url: req.url, authorization: req.headers.authorization ?? null, body }));
  });
};

describe('outbound address rules', () => {
  const check = addressChecker([]);
  const cases: [string, RegExp | undefined][] = [
    ['127.0.0.1', /loopback/],
    ['::1', /loopback/],
    ['10.1.2.3', /private/],
    ['172.31.255.255', /private/],
    ['192.168.0.1', /private/],
    ['fd00::1', /private/],
    ['169.254.169.254', /link-local/],
    ['fe80::1', /link-local/],
    ['0.0.0.0', /unspecified/],
    ['::', /unspecified/],
    ['100.64.0.1', /carrier-grade NAT/],
    ['224.0.0.1', /multicast/],
    ['255.255.255.255', /limited broadcast/],
    ['240.0.0.1', /reserved/],
    ['::ffff:127.0.0.1', /loopback/],
    ['::ffff:a9fe:a9fe', /link-local/],
    ['64:ff9b::a9fe:a9fe', /embedding 169\.254\.169\.254/],
    ['2002:7f00:1::', /embedding 127\.0\.0\.1/],
    ['93.184.215.14', undefined],
    ['2606:4700::1111', undefined],
    ['172.32.0.1', undefined],
  ];
  for (const [address, expected] of cases) {
    it(`${address} → ${expected ?? 'allowed'}`, () => {
      const why = check(address);
      if (expected) assert.match(why ?? '', expected);
      else assert.equal(why, undefined);
    });
  }

  it('allow-list CIDRs win, mapped forms included', () => {
    const allowLoopback = addressChecker(['127.0.0.0/8']);
    assert.equal(allowLoopback('127.9.9.9'), undefined);
    assert.equal(allowLoopback('::ffff:127.0.0.1'), undefined);
    assert.match(allowLoopback('::1') ?? '', /loopback/);
  });

  it('parses the allow setting and names a bad entry', () => {
    assert.deepEqual(parseAllowList(' 127.0.0.0/8, ::1 ,,10.0.0.5'), ['127.0.0.0/8', '::1/128', '10.0.0.5/32']);
    for (const bad of ['127.0.0.0/33', 'localhost', '10.0.0.0/8/1', '::1/abc', '300.1.1.1/8']) {
      assert.throws(
        () => parseAllowList(`127.0.0.0/8,${bad}`),
        (err: Error) => err.message.includes(`"${bad}"`),
      );
    }
    assert.throws(() => createOutbound({ allow: ['nope'], timeoutMs: 1, maxResponseBytes: 1 }), /"nope"/);
  });
});

describe('outbound client', () => {
  it('refuses loopback by default, naming the host and the setting', async () => {
    const server = await serve(echo);
    await assertNoSocket(
      () => outbound().fetch(`${server.url}/`),
      refused(/^127\.0\.0\.1 is a loopback address \(Loopback, RFC 1122 §3\.2\.1\.3\); set MCP_OUTBOUND_ALLOW to allow it$/),
    );
    await assertNoSocket(() => outbound().fetch('http://[::1]:8080/'), refused(/^::1 is a loopback/));
    assert.equal(server.hits(), 0);
  });

  it('allows loopback when the allow-list names it', async () => {
    const server = await serve(echo);
    const before = attempts.length;
    const res = await outbound(loopback).fetch(`${server.url}/hello`, { method: 'POST', body: 'hi' });
    assert.equal(res.status, 200);
    assert.equal(res.url, `${server.url}/hello`);
    assert.deepEqual(await res.json(), { method: 'POST', url: '/hello', authorization: null, body: 'hi' });
    assert.deepEqual(attempts.slice(before), [['127.0.0.1', server.port]]);
  });

  it('refuses private, metadata, mapped and non-http targets before any socket', async () => {
    const client = outbound(); // loopback not allowed
    await assertNoSocket(() => client.fetch('http://169.254.169.254/latest/meta-data/'), refused(/^169\.254\.169\.254 is a link-local/));
    await assertNoSocket(() => client.fetch('http://10.1.2.3/'), refused(/^10\.1\.2\.3 is a private address/));
    await assertNoSocket(() => client.fetch('https://192.168.0.1:8443/'), refused(/^192\.168\.0\.1 is a private address/));
    await assertNoSocket(
      () => client.fetch('http://[::ffff:127.0.0.1]/'),
      refused(/^::ffff:7f00:1 is an IPv6 address embedding 127\.0\.0\.1, a loopback address/),
    );
    await assertNoSocket(() => client.fetch('http://0x7f.1/'), refused(/^127\.0\.0\.1 is a loopback/));
    await assertNoSocket(() => client.fetch('file:///etc/passwd'), refused(/file: URLs are refused.*only http: and https:/));
    await assertNoSocket(() => client.fetch('ftp://example.com/'), refused(/only http: and https:/));
    await assertNoSocket(() => client.check('http://169.254.169.254/'), refused(/link-local/));
    await assertNoSocket(() => client.fetchJson('http://10.0.0.1/.well-known/oauth-protected-resource'), refused(/private/));
  });

  it('checks names at lookup: localhost is refused before any connection attempt', async () => {
    const server = await serve(echo);
    const before = attempts.length;
    await assert.rejects(
      outbound().fetch(`http://localhost:${server.port}/`),
      refused(/^localhost resolves to (127\.0\.0\.1|::1), a loopback address/),
    );
    await assert.rejects(outbound().check(`http://localhost:${server.port}/`), refused(/^localhost resolves to/));
    assert.equal(attempts.length, before, 'no TCP connection attempt');
    assert.equal(server.hits(), 0);
    const res = await outbound(loopback).fetch(`http://localhost:${server.port}/`);
    assert.equal(res.status, 200);
    await res.body?.cancel();
  });

  it('refuses a redirect to the metadata address', async () => {
    const server = await serve((_req, res) => res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end());
    const before = socketsCreated;
    await assert.rejects(outbound(loopback).fetch(`${server.url}/`), refused(/^169\.254\.169\.254 is a link-local/));
    assert.equal(socketsCreated - before, 1, 'only the loopback socket was opened');
    assert.equal(server.hits(), 1);
  });

  it('follows redirects between allowed servers, with browser method rules', async () => {
    const target = await serve(echo);
    const first = await serve((req, res) => {
      const status = Number(req.url?.slice(1));
      res.writeHead(status, { location: `${target.url}/after-${status}` }).end();
    });
    const client = outbound(loopback);
    for (const [status, method, body] of [
      [301, 'GET', ''],
      [302, 'GET', ''],
      [303, 'GET', ''],
      [307, 'POST', 'data'],
      [308, 'POST', 'data'],
    ] as const) {
      const res = await client.fetch(`${first.url}/${status}`, { method: 'POST', body: 'data', headers: { 'content-type': 'text/plain' } });
      assert.equal(res.redirected, true);
      assert.equal(res.url, `${target.url}/after-${status}`);
      assert.deepEqual(await res.json(), { method, url: `/after-${status}`, authorization: null, body });
    }
    const manual = await client.fetch(`${first.url}/302`, { redirect: 'manual' });
    assert.equal(manual.status, 302);
    assert.equal(manual.headers.get('location'), `${target.url}/after-302`);
    await assert.rejects(client.fetch(`${first.url}/302`, { redirect: 'error' }), TypeError);
  });

  it('stops after 5 redirects', async () => {
    const server = await serve((_req, res) => res.writeHead(302, { location: '/again' }).end());
    await assert.rejects(outbound(loopback).fetch(`${server.url}/`), refused(/redirected more than 5 times/));
    assert.equal(server.hits(), 6);
  });

  it('drops Authorization on a cross-origin redirect but keeps it within the origin', async () => {
    const other = await serve(echo);
    const first = await serve((req, res) => {
      if (req.url === '/same') return res.writeHead(307, { location: '/echo' }).end();
      if (req.url === '/echo') return echo(req, res);
      res.writeHead(307, { location: `${other.url}/echo` }).end();
    });
    const client = outbound(loopback);
    const headers = { authorization: 'Bearer secret', cookie: 'sid=1' };
    const cross = (await (await client.fetch(`${first.url}/cross`, { headers })).json()) as { authorization: unknown };
    assert.equal(cross.authorization, null);
    const same = (await (await client.fetch(`${first.url}/same`, { headers })).json()) as { authorization: unknown };
    assert.equal(same.authorization, 'Bearer secret');
  });

  it('times out a server that never sends headers', async () => {
    const server = await serve(() => undefined);
    const started = Date.now();
    await assert.rejects(
      outbound({ ...loopback, timeoutMs: 200 }).fetch(`${server.url}/`),
      (err: unknown) => err instanceof OutboundTimeoutError && err.code === 'outbound_timeout',
    );
    assert.ok(Date.now() - started < 1500);
  });

  it('times out a non-streaming body that stalls', async () => {
    const server = await serve((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).write('{"a":'));
    const res = await outbound({ ...loopback, timeoutMs: 200 }).fetch(`${server.url}/`);
    await assert.rejects(res.text(), OutboundTimeoutError);
  });

  it('caps response bodies', async () => {
    const big = JSON.stringify({ pad: 'x'.repeat(5000) });
    const server = await serve((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', ...(req.url === '/sized' ? { 'content-length': big.length } : {}) });
      res.write(big.slice(0, 100));
      setTimeout(() => res.end(big.slice(100)), 20);
    });
    const client = outbound({ ...loopback, maxResponseBytes: 1000 });
    const tooLarge = (err: unknown) => err instanceof OutboundTooLargeError && err.code === 'outbound_too_large' && err.limit === 1000;
    await assert.rejects(client.fetchJson(`${server.url}/chunked`), tooLarge);
    await assert.rejects(client.fetchJson(`${server.url}/sized`), tooLarge);
    await assert.rejects((await client.fetch(`${server.url}/chunked`)).text(), tooLarge);
    await assert.rejects(readLimited(await outbound(loopback).fetch(`${server.url}/chunked`), 1000), tooLarge);
    const small = await outbound(loopback).fetchJson(`${server.url}/chunked`);
    assert.equal(small.status, 200);
    assert.equal((small.body as { pad: string }).pad.length, 5000);
  });

  it('keeps an SSE stream open past the timeout', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      let n = 0;
      const tick = setInterval(() => {
        res.write(`data: ${n}\n\n`);
        if (++n === 8) (clearInterval(tick), res.end());
      }, 75);
      res.on('close', () => clearInterval(tick));
    });
    const started = Date.now();
    const res = await outbound({ ...loopback, timeoutMs: 200, maxResponseBytes: 20 }).fetch(`${server.url}/sse`);
    const text = await res.text(); // 8 events, ~600 ms, > maxResponseBytes in total
    assert.ok(Date.now() - started > 400);
    assert.deepEqual(
      text.trim().split('\n\n'),
      ['0', '1', '2', '3', '4', '5', '6', '7'].map((n) => `data: ${n}`),
    );
  });

  it('lets the caller abort, SSE streams included', async () => {
    const server = await serve((_req, res) => res.writeHead(200, { 'content-type': 'text/event-stream' }).write('data: hi\n\n'));
    const controller = new AbortController();
    const res = await outbound(loopback).fetch(`${server.url}/`, { signal: controller.signal });
    const reader = res.body!.getReader();
    assert.match(new TextDecoder().decode((await reader.read()).value), /data: hi/);
    controller.abort();
    await assert.rejects(reader.read(), (err: Error) => err.name === 'AbortError');
  });

  it('carries an MCP Streamable HTTP session (SSE answers slower than timeoutMs)', async () => {
    const transports = new Map<string, StreamableHTTPServerTransport>();
    const server = await serve((req, res) => {
      const id = req.headers['mcp-session-id'];
      const existing = typeof id === 'string' ? transports.get(id) : undefined;
      if (existing) return void existing.handleRequest(req, res);
      const mcp = new McpServer({ name: 'slow', version: '1.0.0' });
      mcp.registerTool('slow', { description: 'answers after 400 ms' }, async () => {
        await new Promise((resolve) => setTimeout(resolve, 400));
        return { content: [{ type: 'text', text: 'done' }] };
      });
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => crypto.randomUUID(),
        onsessioninitialized: (sid) => void transports.set(sid, transport),
      });
      void mcp.connect(transport).then(() => transport.handleRequest(req, res));
    });
    const client = new Client({ name: 'test', version: '1.0.0' });
    const { fetch } = outbound({ ...loopback, timeoutMs: 250 });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { fetch }));
    const result = await client.callTool({ name: 'slow', arguments: {} });
    assert.deepEqual(result.content, [{ type: 'text', text: 'done' }]);
    await client.close();
    await Promise.all([...transports.values()].map((t) => t.close()));
  });
});
