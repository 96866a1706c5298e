// Issue #37: a developer's own MCP server and webhook receiver on loopback work under the development
// defaults (PLATFORM_ENV=development, MCP_OUTBOUND_LOOPBACK unset, no MCP_OUTBOUND_ALLOW), and the
// same requests are refused in production with a problem+json that stores nothing. Everything is real:
// @modelcontextprotocol/server-everything over Streamable HTTP, an HTTP receiver, two platforms.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { eventually, type Api, type Reply } from '../helpers/http.js';
import { everythingHttp, mcpServerType, type Started } from '../helpers/mcp-servers.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

/** The defaults a platform has unless told otherwise (the test helper sets MCP_OUTBOUND_LOOPBACK=false). */
const defaults = { MCP_OUTBOUND_LOOPBACK: undefined, MCP_OUTBOUND_ALLOW: undefined } as unknown as Record<string, string>;

let everything: Started;
let receiver: Server;
let receiverUrl = '';
const received: Record<string, unknown>[] = [];
let dev: TestPlatform;
let prod: TestPlatform;

before(async () => {
  everything = await everythingHttp();
  // A webhook receiver that keeps every delivery, and serves one Markdown file for URL imports.
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      if (req.method === 'POST') received.push(JSON.parse(body) as Record<string, unknown>);
      if (req.method === 'GET') res.setHeader('content-type', 'text/markdown');
      res.end(req.method === 'GET' ? '# Local handbook\nServed from loopback.' : '');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  [dev, prod] = await Promise.all([
    startPlatform(defaults, { worker: true }),
    startPlatform({ ...defaults, PLATFORM_ENV: 'production', PLATFORM_MASTER_KEY: randomBytes(32).toString('base64') }, { worker: true }),
  ]);
});
after(async () => {
  await Promise.all([dev?.close(), prod?.close(), everything?.close()]);
  receiver?.close();
});

const workspace = async (api: Api) => (await api.post('/workspaces', { name: 'local' })).body.id as string;

const registerServer = (api: Api, ws: string, url: string) =>
  api.post('/artifacts', {
    title: 'everything, over HTTP',
    content_type: mcpServerType,
    collection_id: ws,
    content: JSON.stringify({ transport: { type: 'http', url } }),
  });

function assertRefused(reply: Reply, param: string, why: RegExp) {
  assert.equal(reply.status, 400, reply.text);
  assert.match(reply.headers.get('content-type') ?? '', /^application\/problem\+json/);
  assert.equal(reply.body.type, 'urn:platform:problem:validation-error');
  assert.deepEqual(
    reply.body.invalid_params.map((p: { name: string }) => p.name),
    [param],
  );
  assert.match(reply.body.detail, why);
}

describe('development defaults: loopback is reachable', () => {
  it('runs with loopback allowed and no allow-list', () => {
    assert.equal(dev.config.PLATFORM_ENV, 'development');
    assert.equal(dev.config.MCP_OUTBOUND_ALLOW, '');
    assert.equal(dev.config.outboundLoopback, true);
  });

  it('registers server-everything over Streamable HTTP on 127.0.0.1 and calls its echo tool', async () => {
    const alice = await dev.newUser();
    const ws = await workspace(alice);
    const registered = await registerServer(alice, ws, everything.url);
    assert.equal(registered.status, 201, registered.text);
    const call = await alice.post(`/artifacts/${registered.body.id}/invoke`, {
      name: 'echo',
      arguments: { message: 'hello over loopback' },
      wait_seconds: 60,
    });
    assert.equal(call.status, 200, call.text);
    assert.equal(call.body.result.isError ?? false, false, call.text);
    assert.equal(call.body.result.content[0].text, 'Echo: hello over loopback');
    // localhost resolves to loopback: the name passes the same guard.
    const byName = await registerServer(alice, ws, everything.url.replace('127.0.0.1', 'localhost'));
    assert.equal(byName.status, 201, byName.text);
  });

  it('delivers a webhook to a receiver on 127.0.0.1', async () => {
    const alice = await dev.newUser();
    const ws = await workspace(alice);
    const server = (await registerServer(alice, ws, everything.url)).body.id;
    const sub = await alice.post(`/workspaces/${ws}/subscriptions`, {
      url: `${receiverUrl}/hook`,
      server_id: server,
      kinds: ['artifact_created'],
    });
    assert.equal(sub.status, 201, sub.text);
    const note = await alice.post('/artifacts', { title: 'hooked', content_type: 'text/plain', content: 'x', collection_id: ws });
    assert.equal(note.status, 201, note.text);
    const event = await eventually(async () => received.find((e) => e.artifact_id === note.body.id), 30_000, 'the delivery');
    assert.equal(event.kind, 'artifact_created');
    assert.equal(event.workspace_id, ws);
    const deliveries = await eventually(async () => {
      const items = (await alice.get(`/subscriptions/${sub.body.id}/deliveries`)).body.items as { outcome: string }[];
      return items.length > 0 ? items : undefined;
    });
    assert.equal(deliveries[0]!.outcome, 'delivered');
  });

  it('imports a URL served on 127.0.0.1', async () => {
    const alice = await dev.newUser();
    const ws = await workspace(alice);
    const started = await alice.post(`/workspaces/${ws}/imports`, { urls: [{ url: `${receiverUrl}/handbook.md` }] });
    assert.equal(started.status, 202, started.text);
    const done = await eventually(async () => {
      const body = (await alice.get(`/imports/${started.body.id}`)).body;
      return body.state !== 'running' ? body : undefined;
    }, 30_000);
    assert.deepEqual([done.state, done.counts.created, done.counts.failed], ['completed', 1, 0], JSON.stringify(done));
  });

  it('still refuses private, link-local and metadata addresses, and stores nothing', async () => {
    const alice = await dev.newUser();
    const ws = await workspace(alice);
    for (const url of ['http://169.254.169.254/mcp', 'http://10.0.0.7/mcp', 'http://192.168.1.10:3001/mcp', 'http://[fe80::1]/mcp']) {
      assertRefused(await registerServer(alice, ws, url), 'content.transport.url', /The platform will not call .*MCP_OUTBOUND_ALLOW/);
    }
    const server = (await registerServer(alice, ws, everything.url)).body.id;
    for (const url of ['https://169.254.169.254/hook', 'https://10.0.0.7/hook']) {
      assertRefused(await alice.post(`/workspaces/${ws}/subscriptions`, { url, server_id: server }), 'url', /MCP_OUTBOUND_ALLOW/);
    }
    assert.equal((await alice.get(`/artifacts?collection_id=${ws}`)).body.items.length, 1, 'only the loopback server');
    assert.equal(await dev.services.db.collection('subscriptions').countDocuments({ workspace_id: ws }), 0);
  });
});

describe('production: loopback is refused', () => {
  it('runs with loopback refused', () => {
    assert.equal(prod.config.PLATFORM_ENV, 'production');
    assert.equal(prod.config.outboundLoopback, false);
  });

  it('refuses the same MCP server and webhook with a problem+json, and stores nothing', async () => {
    const alice = await prod.newUser();
    const ws = await workspace(alice);
    for (const url of [everything.url, everything.url.replace('127.0.0.1', '[::1]')]) {
      assertRefused(await registerServer(alice, ws, url), 'content.transport.url', /is a loopback address .*set MCP_OUTBOUND_ALLOW/);
    }
    assert.equal((await alice.get(`/artifacts?collection_id=${ws}`)).body.items.length, 0, 'no server was stored');
    // A server the subscription can name (its host does not resolve here: it is checked again when called).
    const server = await registerServer(alice, ws, 'https://mcp.example.invalid/mcp');
    assert.equal(server.status, 201, server.text);
    const sub = await alice.post(`/workspaces/${ws}/subscriptions`, { url: `${receiverUrl}/hook`, server_id: server.body.id });
    assertRefused(sub, 'url', /is a loopback address .*set MCP_OUTBOUND_ALLOW/);
    assert.equal(await prod.services.db.collection('subscriptions').countDocuments({ workspace_id: ws }), 0, 'no subscription');
  });

  it('fetches no URL import from 127.0.0.1: the item fails, naming the refusal, and nothing is written', async () => {
    const alice = await prod.newUser();
    const ws = await workspace(alice);
    const started = await alice.post(`/workspaces/${ws}/imports`, { urls: [{ url: `${receiverUrl}/handbook.md` }] });
    assert.equal(started.status, 202, started.text);
    const done = await eventually(async () => {
      const body = (await alice.get(`/imports/${started.body.id}`)).body;
      return body.state !== 'running' ? body : undefined;
    }, 30_000);
    assert.deepEqual([done.counts.created, done.counts.failed], [0, 1], JSON.stringify(done));
    const [item] = (await alice.get(`/imports/${started.body.id}/items`)).body.items;
    assert.match(item.message, /loopback/);
    assert.equal((await alice.get(`/artifacts?collection_id=${ws}`)).body.items.length, 0);
  });
});
