// An MCP client configuration in OAuth mode, used as Claude, VS Code or Cursor use it: the official
// TypeScript SDK (v2 client) is given only the endpoint's URL, meets its 401, discovers the protected
// resource metadata it names, registers, sends the person to authorize, and then sees only the
// configured tools. A configuration tied to that OAuth client refuses any other credential.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { Browser } from '../helpers/oauth-browser.js';
import { MemoryProvider } from '../helpers/oauth-memory-provider.js';
import { Api } from '../helpers/http.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

let platform: TestPlatform;
let person: { email: string; password: string };
let api: Api;

before(async () => {
  platform = await startPlatform({ SIGN_IN_LOCK_AFTER: '0', AUTH_RATE_LIMIT_PER_MINUTE: '0' }, { worker: false });
  person = { email: `mcp-client-${randomBytes(4).toString('hex')}@example.test`, password: randomBytes(12).toString('hex') };
  const created = await (await platform.admin()).post('/users', person);
  assert.equal(created.status, 201, created.text);
  api = await new Api(platform.url).login(person.email, person.password);
});
after(() => platform?.close());

const newProvider = () => new MemoryProvider('MCP client configuration test', 'http://127.0.0.1:33419/callback');

/** The person signs in at the page the SDK sent them to, allows, and hands back the callback's query. */
async function personAllows(url: URL): Promise<URLSearchParams> {
  const browser = new Browser(platform.url);
  const login = await browser.get(url.pathname + url.search);
  assert.equal(login.status, 200, login.html);
  const consent = await browser.signIn(login, person.email, person.password);
  assert.equal(consent.status, 200, consent.html);
  const back = await browser.decide(consent, 'allow', {});
  assert.equal(back.status, 303);
  return new URL(back.location!).searchParams;
}

/** Signs a new OAuth client in to the endpoint, as a client given only its URL does. */
async function signedIn(endpoint: URL): Promise<MemoryProvider> {
  const provider = newProvider();
  const transport = new StreamableHTTPClientTransport(endpoint, { authProvider: provider });
  await assert.rejects(
    new Client({ name: 'oauth-client', version: '1.0.0' }).connect(transport),
    (err) => err instanceof UnauthorizedError,
  );
  assert.ok(provider.authorizationUrl, 'sent the person to authorize');
  assert.ok(
    endpoint.href.startsWith(provider.authorizationUrl.searchParams.get('resource')!),
    'asked for a resource that covers the endpoint',
  );
  await transport.finishAuth(await personAllows(provider.authorizationUrl));
  assert.ok(provider.saved?.access_token);
  return provider;
}

async function toolsThrough(endpoint: URL, provider: MemoryProvider): Promise<string[]> {
  const client = new Client({ name: 'oauth-client', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(endpoint, { authProvider: provider }));
  try {
    return (await client.listTools()).tools.map((t) => t.name).sort();
  } finally {
    await client.close();
  }
}

describe('an MCP client configuration in OAuth mode', () => {
  it('lets the TypeScript SDK sign in from the endpoint URL alone, and serves it only the configured tools', async () => {
    const config = { workspaces: '*', collections: '*', tools: ['search', 'get_artifact'], scopes: ['artifact:read', 'search:read'] };
    const created = await api.post('/artifacts', {
      title: 'Claude',
      content_type: 'application/vnd.platform.mcp-client+json',
      content: JSON.stringify({ ...config, auth: { type: 'oauth' } }),
    });
    assert.equal(created.status, 201, created.text);
    const id = created.body.id;
    const rendered = await api.get(`/artifacts/${id}/client-config`);
    const endpoint = new URL(rendered.body.endpoint);

    const provider = await signedIn(endpoint);
    assert.deepEqual(await toolsThrough(endpoint, provider), ['get_artifact', 'search']);

    // Tied to this OAuth client: it still connects; another client the same person signed in is refused.
    const pinned = await api.patch(`/artifacts/${id}`, {
      content: JSON.stringify({ ...config, auth: { type: 'oauth', client_id: provider.info.client_id } }),
    });
    assert.equal(pinned.status, 200, pinned.text);
    assert.deepEqual(await toolsThrough(endpoint, provider), ['get_artifact', 'search']);
    // Another client signing in from the same URL gets its token, then the endpoint refuses it.
    const other = newProvider();
    const transport = new StreamableHTTPClientTransport(endpoint, { authProvider: other });
    await assert.rejects(new Client({ name: 'other', version: '1.0.0' }).connect(transport), (err) => err instanceof UnauthorizedError);
    await transport.finishAuth(await personAllows(other.authorizationUrl!));
    assert.notEqual(other.info.client_id, provider.info.client_id);
    const refused = await fetch(endpoint, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${other.saved.access_token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    assert.equal(refused.status, 403, await refused.clone().text());
    assert.match((await refused.json()).detail, new RegExp(`only OAuth client ${provider.info.client_id}`));
  });
});
