// Issue #30: a client ID metadata document URL makes the platform fetch it, for anyone who can reach the
// sign-in page. It never reaches loopback or any other non-public address unless an operator lists the
// range (OAUTH_METADATA_DOCUMENT_ALLOW, empty in every mode, development included), and every failure
// gives the same page, so nobody learns which ports are open or what answers there. And the consent
// form is rate-limited like the sign-in form.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { createServer as createTcpServer, type Server } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { freePort } from '../../temporal-dev/engines.js';
import { Browser, pkce, type PageReply } from '../helpers/oauth-browser.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

let unlisted: TestPlatform; // the defaults (development mode)
let listed: TestPlatform; // an operator lists loopback, as the other OAuth tests do
let limited: TestPlatform;

before(async () => {
  const common = { SIGN_IN_LOCK_AFTER: '0', AUTH_RATE_LIMIT_PER_MINUTE: '0' };
  [unlisted, listed, limited] = await Promise.all([
    startPlatform(common, { worker: false }),
    startPlatform({ ...common, OAUTH_METADATA_DOCUMENT_ALLOW: '127.0.0.0/8' }, { worker: false }),
    startPlatform({ AUTH_RATE_LIMIT_PER_MINUTE: '2' }, { worker: false }),
  ]);
});
after(() => Promise.all([unlisted?.close(), listed?.close(), limited?.close()]));

function authorize(platform: TestPlatform, clientId: string): Promise<PageReply> {
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: 'http://127.0.0.1:9/callback',
    code_challenge: pkce().challenge,
    code_challenge_method: 'S256',
    state: 'metadata',
  });
  return new Browser(platform.url).get(`/oauth/authorize?${q}`);
}

const listen = (server: Server | ReturnType<typeof createServer>, port: number) =>
  new Promise<void>((r) => server.listen(port, '127.0.0.1', () => r()));
const close = (server: Server | ReturnType<typeof createServer>) => new Promise((r) => server.close(r));

/** A loopback HTTP server with documents by path, counting the requests it gets. */
async function documentServer(documents: (port: number) => Record<string, { status: number; body: string; headers?: object }>) {
  const port = await freePort();
  const served = documents(port);
  let requests = 0;
  const server = createServer((req, res) => {
    requests++;
    const doc = served[req.url!] ?? { status: 404, body: '{}' };
    res.writeHead(doc.status, { 'content-type': 'application/json', ...doc.headers }).end(doc.body);
  });
  await listen(server, port);
  return { port, requests: () => requests, close: () => close(server) };
}

const valid = (clientId: string) =>
  JSON.stringify({
    client_id: clientId,
    client_name: 'Local',
    redirect_uris: ['http://127.0.0.1:9/callback'],
    token_endpoint_auth_method: 'none',
  });

describe('client ID metadata documents on non-public addresses', () => {
  it('never contacts loopback by default, not even in development mode, over http or https, by address or by name', async () => {
    const docs = await documentServer((port) => ({ '/client.json': { status: 200, body: valid(`http://127.0.0.1:${port}/client.json`) } }));
    const tlsPort = await freePort();
    let connections = 0;
    const tcp = createTcpServer((socket) => (connections++, socket.destroy()));
    await listen(tcp, tlsPort);
    try {
      for (const clientId of [
        `http://127.0.0.1:${docs.port}/client.json`,
        `https://127.0.0.1:${tlsPort}/client.json`,
        `https://localhost:${tlsPort}/client.json`,
        `https://[::ffff:127.0.0.1]:${tlsPort}/client.json`,
      ]) {
        const reply = await authorize(unlisted, clientId);
        assert.equal(reply.status, 400, `${clientId}: ${reply.html.slice(0, 500)}`);
        assert.doesNotMatch(reply.html, /action="\/oauth\/login"/, clientId);
      }
      assert.equal(docs.requests(), 0, 'the loopback document server was never asked');
      assert.equal(connections, 0, 'no connection was opened to loopback');
    } finally {
      await Promise.all([docs.close(), close(tcp)]);
    }
  });

  it('gives one answer for an open port and a closed one', async () => {
    const open = await freePort();
    const closed = await freePort();
    const tcp = createTcpServer((socket) => socket.destroy());
    await listen(tcp, open);
    try {
      const a = await authorize(unlisted, `https://127.0.0.1:${open}/client.json`);
      const b = await authorize(unlisted, `https://127.0.0.1:${closed}/client.json`);
      assert.equal(a.status, b.status);
      assert.equal(a.html, b.html);
    } finally {
      await close(tcp);
    }
  });

  it('with loopback listed by the operator: accepts a good document, and every failure looks the same', async () => {
    const docs = await documentServer((port) => ({
      '/client.json': { status: 200, body: valid(`http://127.0.0.1:${port}/client.json`) },
      '/not-json.json': { status: 200, body: 'hello' },
      '/invalid.json': { status: 200, body: JSON.stringify({ client_id: `http://127.0.0.1:${port}/invalid.json` }) },
      '/liar.json': { status: 200, body: valid(`http://127.0.0.1:${port}/other.json`) },
      '/moved.json': { status: 302, body: '', headers: { location: `http://127.0.0.1:${port}/client.json` } },
      '/error.json': { status: 500, body: '{}' },
    }));
    const closed = await freePort();
    try {
      const good = await authorize(listed, `http://127.0.0.1:${docs.port}/client.json`);
      assert.equal(good.status, 200, good.html);
      assert.match(good.html, /action="\/oauth\/login"/);
      const failures = [
        ...['/missing.json', '/not-json.json', '/invalid.json', '/liar.json', '/moved.json', '/error.json'].map(
          (path) => `http://127.0.0.1:${docs.port}${path}`,
        ),
        `http://127.0.0.1:${closed}/client.json`,
      ];
      const replies = await Promise.all(failures.map((clientId) => authorize(listed, clientId)));
      for (const [i, reply] of replies.entries()) {
        assert.equal(reply.status, 400, failures[i]);
        assert.equal(reply.html, replies[0]!.html, `${failures[i]} answers like ${failures[0]}`);
      }
      assert.match(replies[0]!.html, /could not be fetched or is not valid/);
    } finally {
      await docs.close();
    }
  });
});

describe('the consent form’s rate limit', () => {
  it('counts /oauth/consent with the credential exchanges: 429 rate-limited past AUTH_RATE_LIMIT_PER_MINUTE', async () => {
    const post = () =>
      fetch(`${limited.url}/oauth/consent`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ request: 'not a sealed request', decision: 'allow' }).toString(),
      });
    const replies = [];
    for (let i = 0; i < 3; i++) replies.push(await post());
    assert.deepEqual(
      replies.map((r) => r.status),
      [400, 400, 429],
    );
    const refused = replies[2]!;
    assert.match(refused.headers.get('content-type') ?? '', /application\/problem\+json/);
    assert.equal(((await refused.json()) as { type: string }).type, 'urn:platform:problem:rate-limited');
    assert.ok(Number(refused.headers.get('retry-after')) >= 1);
  });
});
