// The official TypeScript MCP SDK (v2 client, @modelcontextprotocol/client) signs in to /mcp through
// its own auth() flow: discovery, dynamic registration, the authorization code with PKCE (a person's
// browser at the sign-in and consent pages, driven by form posts), tools, a refresh, and tools again;
// and its scope step-up: a 403 insufficient_scope sends the person to authorize more, then the call goes through.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { auth, Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { Browser } from '../helpers/oauth-browser.js';
import { MemoryProvider } from '../helpers/oauth-memory-provider.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

let platform: TestPlatform;
let person: { email: string; password: string };

before(async () => {
  platform = await startPlatform({ SIGN_IN_LOCK_AFTER: '0', AUTH_RATE_LIMIT_PER_MINUTE: '0' }, { worker: false });
  person = { email: `ts-${randomBytes(4).toString('hex')}@example.test`, password: randomBytes(12).toString('hex') };
  const created = await (await platform.admin()).post('/users', person);
  assert.equal(created.status, 201, created.text);
});
after(() => platform.close());

const newProvider = () => new MemoryProvider('TS SDK test client', 'http://127.0.0.1:33418/callback');

/**
 * The person at the pages the SDK sent them to: signs in, allows (`change`: the consent form's fields
 * they change, a scope left unticked as null), and hands back the callback's query.
 */
async function personAllows(url: URL, change: Record<string, string | null> = {}): Promise<URLSearchParams> {
  const browser = new Browser(platform.url);
  const login = await browser.get(url.pathname + url.search);
  assert.equal(login.status, 200, login.html);
  const consent = await browser.signIn(login, person.email, person.password);
  assert.equal(consent.status, 200, consent.html);
  const back = await browser.decide(consent, 'allow', change);
  assert.equal(back.status, 303);
  const callback = new URL(back.location!);
  assert.equal(callback.origin + callback.pathname, 'http://127.0.0.1:33418/callback');
  return callback.searchParams;
}

async function search(provider: MemoryProvider) {
  const client = new Client({ name: 'ts-sdk-oauth', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${platform.url}/mcp`), { authProvider: provider }));
  try {
    const tools = (await client.listTools()).tools.map((t) => t.name);
    const result = await client.callTool({ name: 'search', arguments: { query: 'anything', limit: 3 } });
    return { tools, result };
  } finally {
    await client.close();
  }
}

describe('the TypeScript SDK as an OAuth client of /mcp', () => {
  it('registers, is authorized by a person, lists and calls tools, refreshes and calls again', async () => {
    const provider = newProvider();
    const mcpUrl = new URL(`${platform.url}/mcp`);
    // A first connection meets 401: the SDK discovers, registers and sends the person to authorize.
    const transport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
    await assert.rejects(
      new Client({ name: 'ts-sdk-oauth', version: '1.0.0' }).connect(transport),
      (err) => err instanceof UnauthorizedError,
    );
    assert.ok(provider.info?.client_id, 'registered dynamically');
    assert.ok(provider.authorizationUrl, 'sent the person to authorize');
    assert.equal(provider.authorizationUrl.searchParams.get('resource'), mcpUrl.href);
    assert.equal(provider.authorizationUrl.searchParams.get('code_challenge_method'), 'S256');
    await transport.finishAuth(await personAllows(provider.authorizationUrl));
    const first = provider.saved;
    assert.ok(first?.access_token && first.refresh_token);

    const one = await search(provider);
    assert.ok(one.tools.includes('search'));
    assert.notEqual(one.result.isError, true, JSON.stringify(one.result));
    assert.ok(one.result.structuredContent);

    // auth() with a refresh token in hand refreshes: a new access and refresh token (rotation).
    assert.equal(await auth(provider, { serverUrl: mcpUrl }), 'AUTHORIZED');
    assert.notEqual(provider.saved.refresh_token, first.refresh_token);
    assert.notEqual(provider.saved.access_token, first.access_token);
    const two = await search(provider);
    assert.notEqual(two.result.isError, true);

    const consent = await platform.services.consents.get(
      (await platform.services.users.findByEmail(person.email))!._id,
      'oauth_client',
      provider.info.client_id,
    );
    assert.ok(consent?.oauth, 'the person’s consent is recorded');
  });

  it('steps up: a call needing a scope the person did not allow sends them to allow it, and then goes through', async () => {
    const provider = newProvider();
    const mcpUrl = new URL(`${platform.url}/mcp`);
    const first = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
    await assert.rejects(new Client({ name: 'ts-sdk-oauth', version: '1.0.0' }).connect(first), (err) => err instanceof UnauthorizedError);
    // The person allows everything asked but writing.
    await first.finishAuth(await personAllows(provider.authorizationUrl!, { 'scope:artifact:write': null }));
    const granted = (provider.saved.scope as string).split(' ');
    assert.ok(granted.includes('artifact:read') && !granted.includes('artifact:write'), provider.saved.scope);

    const client = new Client({ name: 'ts-sdk-oauth', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
    await client.connect(transport);
    try {
      const listed = (await client.listTools()).tools.map((t) => t.name);
      assert.ok(listed.includes('get_artifact') && !listed.includes('create_artifact'), `listed by scope: ${listed}`);
      const draft = { name: 'create_artifact', arguments: { title: 'Stepped up', content_type: 'text/plain', content: 'x' } };
      // 403 insufficient_scope: the SDK asks for the union of what it holds and the challenge's scopes,
      // which is more than the token carries, so it sends the person to authorize again.
      provider.authorizationUrl = null;
      await assert.rejects(client.callTool(draft), (err) => err instanceof UnauthorizedError);
      const again = provider.authorizationUrl as URL | null;
      assert.ok(again, 'sent the person to authorize more');
      const asked = again.searchParams.get('scope')!.split(' ');
      assert.ok(asked.includes('artifact:write') && granted.every((s) => asked.includes(s)), `asked for ${asked}`);
      await transport.finishAuth(await personAllows(again));
      assert.ok((provider.saved.scope as string).split(' ').includes('artifact:write'), provider.saved.scope);

      const created = await client.callTool(draft);
      assert.notEqual(created.isError, true, JSON.stringify(created.content));
      assert.equal((created.structuredContent as { title: string }).title, 'Stepped up');
      assert.ok(
        (await client.listTools()).tools.some((t) => t.name === 'create_artifact'),
        'listed now',
      );
    } finally {
      await client.close();
    }
  });
});
