// Each MCP client configuration is a protected resource of its own (RFC 9728, RFC 8707; issue #36): its
// endpoint's 401 names metadata whose resource is the endpoint itself, the authorization server mints
// tokens for that audience, and such a token is accepted only there: /mcp, the REST API and another
// configuration's endpoint refuse it (401 invalid_token, saying why). Refreshed tokens keep the audience.
// The OAuth flow is the official TypeScript SDK's (v2 client), given only the endpoint's URL.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { createApiKey } from '../helpers/credentials.js';
import { Browser } from '../helpers/oauth-browser.js';
import { MemoryProvider } from '../helpers/oauth-memory-provider.js';
import { Api } from '../helpers/http.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

let platform: TestPlatform;
let person: { email: string; password: string };
let api: Api;

before(async () => {
  platform = await startPlatform({ SIGN_IN_LOCK_AFTER: '0', AUTH_RATE_LIMIT_PER_MINUTE: '0' }, { worker: false });
  person = { email: `mcp-audience-${randomBytes(4).toString('hex')}@example.test`, password: randomBytes(12).toString('hex') };
  const created = await (await platform.admin()).post('/users', person);
  assert.equal(created.status, 201, created.text);
  api = await new Api(platform.url).login(person.email, person.password);
});
after(() => platform?.close());

const newProvider = () => new MemoryProvider('MCP client configuration audience test', 'http://127.0.0.1:33421/callback');

async function configuration(content: Record<string, unknown>, title: string): Promise<string> {
  const created = await api.post('/artifacts', {
    title,
    content_type: 'application/vnd.platform.mcp-client+json',
    content: JSON.stringify({ auth: { type: 'oauth' }, ...content }),
  });
  assert.equal(created.status, 201, created.text);
  return created.body.id;
}

const readOnly = { workspaces: '*', collections: '*', tools: ['search', 'get_artifact'], scopes: ['artifact:read', 'search:read'] };
const endpointOf = (id: string) => new URL(`${platform.url}/mcp/clients/${id}`);
const metadataOf = (id: string) => `${platform.url}/.well-known/oauth-protected-resource/mcp/clients/${id}`;

/** One JSON-RPC tools/list (2025 era, no envelope) with this bearer token. */
function toolsList(url: string | URL, token: string | null): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
}

/** A 401 invalid_token whose challenge names `metadata` and whose description says the audience is the configuration's. */
async function refusedForAudience(res: Response, metadata: string, configId: string): Promise<void> {
  assert.equal(res.status, 401, await res.clone().text());
  const challenge = res.headers.get('www-authenticate') ?? '';
  assert.match(challenge, /error="invalid_token"/);
  assert.ok(challenge.includes(`resource_metadata="${metadata}"`), challenge);
  assert.ok(challenge.includes(`the MCP client configuration endpoint /mcp/clients/${configId}`), challenge);
  assert.match(((await res.json()) as { detail: string }).detail, /accepted only there/);
}

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

describe("an MCP client configuration's own audience", () => {
  it('serves protected resource metadata naming the endpoint, for any id alike; the 401 names it', async () => {
    const id = await configuration(readOnly, 'Metadata');
    const anonymous = await toolsList(endpointOf(id), null);
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.headers.get('www-authenticate'), `Bearer resource_metadata="${metadataOf(id)}"`);

    const reply = await fetch(metadataOf(id));
    assert.equal(reply.status, 200);
    const metadata = (await reply.json()) as Record<string, any>;
    assert.equal(metadata.resource, endpointOf(id).href);
    assert.deepEqual(metadata.authorization_servers, [platform.url]);
    assert.deepEqual(metadata.bearer_methods_supported, ['header']);
    // The full list, as for an id that names nothing: an anonymous caller learns nothing of a configuration.
    const unknown = '0196a3f0-0000-7000-8000-00000000abcd';
    const other = (await (await fetch(metadataOf(unknown))).json()) as Record<string, any>;
    assert.equal(other.resource, endpointOf(unknown).href);
    assert.deepEqual(other.scopes_supported, metadata.scopes_supported);
    assert.ok(metadata.scopes_supported.includes('artifact:manage'));
    // Not an id: a 400 naming it, no metadata.
    const bad = await fetch(`${platform.url}/.well-known/oauth-protected-resource/mcp/clients/nope`);
    assert.equal(bad.status, 400, await bad.text());
  });

  it('signs the TypeScript SDK in for the endpoint alone: its token is refused on /mcp, the REST API and another configuration', async () => {
    const id = await configuration(readOnly, 'Claude');
    const otherId = await configuration(readOnly, 'Cursor');
    const endpoint = endpointOf(id);

    const provider = newProvider();
    const transport = new StreamableHTTPClientTransport(endpoint, { authProvider: provider });
    await assert.rejects(
      new Client({ name: 'oauth-client', version: '1.0.0' }).connect(transport),
      (err) => err instanceof UnauthorizedError,
    );
    assert.equal(provider.authorizationUrl?.searchParams.get('resource'), endpoint.href, 'asks for the endpoint itself');
    await transport.finishAuth(await personAllows(provider.authorizationUrl!));
    const token = provider.saved.access_token as string;
    const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { aud: string };
    assert.equal(claims.aud, endpoint.href, 'the token is minted for the endpoint');

    // Accepted on its endpoint, narrowed to the configuration's tools.
    const client = new Client({ name: 'oauth-client', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(endpoint, { authProvider: provider }));
    try {
      assert.deepEqual((await client.listTools()).tools.map((t) => t.name).sort(), ['get_artifact', 'search']);
    } finally {
      await client.close();
    }

    // Refused everywhere else, each naming its own resource's metadata.
    await refusedForAudience(await toolsList(`${platform.url}/mcp`, token), `${platform.url}/.well-known/oauth-protected-resource/mcp`, id);
    await refusedForAudience(await toolsList(endpointOf(otherId), token), metadataOf(otherId), id);
    for (const path of ['/workspaces', '/artifacts', `/artifacts/${id}`]) {
      const rest = await fetch(`${platform.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
      await refusedForAudience(rest, `${platform.url}/.well-known/oauth-protected-resource`, id);
    }

    // The refreshed token keeps the audience; asking to move it to the API is refused.
    const refresh = (form: Record<string, string>) =>
      fetch(`${platform.url}/auth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'refresh_token', client_id: provider.info.client_id, ...form }),
      });
    const moved = await refresh({ refresh_token: provider.saved.refresh_token, resource: platform.url });
    assert.equal(moved.status, 400);
    assert.equal(((await moved.json()) as { error: string }).error, 'invalid_target');
    const refreshed = await refresh({ refresh_token: provider.saved.refresh_token });
    assert.equal(refreshed.status, 200, await refreshed.clone().text());
    const renewed = ((await refreshed.json()) as { access_token: string }).access_token;
    assert.equal((await toolsList(endpoint, renewed)).status, 200);
    await refusedForAudience(
      await toolsList(`${platform.url}/mcp`, renewed),
      `${platform.url}/.well-known/oauth-protected-resource/mcp`,
      id,
    );
    await refusedForAudience(
      await fetch(`${platform.url}/workspaces`, { headers: { authorization: `Bearer ${renewed}` } }),
      `${platform.url}/.well-known/oauth-protected-resource`,
      id,
    );

    // A token for the API keeps working on the endpoint (narrowed there), as before.
    const apiToken = await toolsList(endpoint, api.token!);
    assert.equal(apiToken.status, 200);
    const listed = ((await apiToken.json()) as { result: { tools: { name: string }[] } }).result.tools.map((t) => t.name).sort();
    assert.deepEqual(listed, ['get_artifact', 'search']);
  });

  it('refuses a resource under /mcp/clients that is not an id, at the authorization request', async () => {
    const registered = await fetch(`${platform.url}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: ['http://127.0.0.1:9/callback'], token_endpoint_auth_method: 'none' }),
    });
    assert.equal(registered.status, 201);
    const clientId = ((await registered.json()) as { client_id: string }).client_id;
    const challenge = createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url');
    const query = new URLSearchParams({
      client_id: clientId,
      redirect_uri: 'http://127.0.0.1:9/callback',
      response_type: 'code',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      resource: `${platform.url}/mcp/clients/not-an-id`,
    });
    const reply = await new Browser(platform.url).get(`/oauth/authorize?${query}`);
    assert.equal(reply.status, 400);
    assert.match(reply.html, /invalid_target/);
  });

  it("steps a client up for the endpoint's own resource when the token lacks a scope the configuration grants", async () => {
    const id = await configuration(readOnly, 'Step up');
    const reader = (await createApiKey(api, ['artifact:read'])).key;
    const res = await fetch(endpointOf(id), {
      method: 'POST',
      headers: { authorization: `Bearer ${reader}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search', arguments: { query: 'x' } } }),
    });
    assert.equal(res.status, 403);
    const challenge = res.headers.get('www-authenticate') ?? '';
    assert.match(challenge, /error="insufficient_scope"/);
    assert.ok(challenge.includes(`resource_metadata="${metadataOf(id)}"`), challenge);
  });
});
