// MCP client configurations (application/vnd.platform.mcp-client+json, issue #36): the schema's 400s,
// the configuration served as its own MCP endpoint to the official TypeScript client (only its tools,
// within its scopes and containers), edits taking effect, who may use it, and the rendered snippets.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client as ClientV2, InsufficientScopeError, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createApiKey } from '../helpers/credentials.js';
import type { Api } from '../helpers/http.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

const mcpClientType = 'application/vnd.platform.mcp-client+json';

let platform: TestPlatform;
let alice: Api & { userId: string };
let bob: Api & { userId: string };
let inside: string; // the workspace the configuration reaches
let outside: string; // one of alice's it does not
let insideNote: string;
let outsideNote: string;

async function workspace(api: Api, name: string): Promise<string> {
  const reply = await api.post('/workspaces', { name });
  assert.equal(reply.status, 201, reply.text);
  return reply.body.id;
}

async function note(api: Api, workspaceId: string, title: string): Promise<string> {
  const reply = await api.post('/artifacts', { title, content_type: 'text/plain', content: title, collection_id: workspaceId });
  assert.equal(reply.status, 201, reply.text);
  return reply.body.id;
}

async function configuration(api: Api, content: Record<string, unknown>, title = 'Research assistant'): Promise<string> {
  const reply = await api.post('/artifacts', {
    title,
    content_type: mcpClientType,
    content: JSON.stringify(content),
    collection_id: inside,
  });
  assert.equal(reply.status, 201, reply.text);
  return reply.body.id;
}

const endpoint = (id: string) => new URL(`${platform.url}/mcp/clients/${id}`);

/** The official TypeScript client (v2), negotiating 2026-07-28, through the configuration's endpoint. */
async function connect(id: string, token: string): Promise<ClientV2> {
  const client = new ClientV2({ name: 'mcp-client-test', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(new TransportV2(endpoint(id), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

async function listed(client: ClientV2 | Client): Promise<string[]> {
  return (await client.listTools()).tools.map((t) => t.name).sort();
}

/** A tool call the endpoint does not offer: refused as an unknown tool, as a protocol error or an error result. */
async function refusedAsUnknown(client: ClientV2 | Client, name: string, args: Record<string, unknown>): Promise<void> {
  let outcome: string;
  try {
    const result = await client.callTool({ name, arguments: args });
    assert.equal(result.isError, true, `${name} answered: ${JSON.stringify(result)}`);
    outcome = JSON.stringify(result.content);
  } catch (err) {
    assert.ok(!(err instanceof InsufficientScopeError), `${name}: refused as unknown, not for a scope`);
    outcome = String(err);
  }
  assert.match(outcome, new RegExp(`${name}.*not found|not found.*${name}|unknown tool`, 'i'), outcome);
}

const text = (r: { content?: unknown }) => (r.content as { type: string; text: string }[])[0]!.text;

before(async () => {
  platform = await startPlatform();
  alice = await platform.newUser();
  bob = await platform.newUser();
  inside = await workspace(alice, 'Inside');
  outside = await workspace(alice, 'Outside');
  insideNote = await note(alice, inside, 'inside note');
  outsideNote = await note(alice, outside, 'outside note');
});
after(() => platform?.close());

describe('the mcp-client content type', () => {
  it('refuses content that is not a configuration with a 400 naming the field, and stores nothing', async () => {
    const valid = { workspaces: '*', collections: '*', tools: ['get_artifact'], scopes: ['artifact:read'], auth: { type: 'oauth' } };
    const cases: [string, Record<string, unknown>, string][] = [
      ['an unknown tool', { ...valid, tools: ['get_artifact', 'drop_everything'] }, 'content.tools.1'],
      ['a malformed tool name', { ...valid, tools: ['Get Artifact'] }, 'content.tools.0'],
      ['no tool', { ...valid, tools: [] }, 'content.tools'],
      ['an unknown scope', { ...valid, scopes: ['artifact:read', 'root'] }, 'content.scopes.1'],
      ['a workspace id that is not a UUID', { ...valid, workspaces: ['not-an-id'] }, 'content.workspaces.0'],
      ['collections neither * nor ids', { ...valid, collections: 'all' }, 'content.collections'],
      ['no workspaces', { ...valid, workspaces: undefined }, 'content.workspaces'],
      ['no auth', { ...valid, auth: undefined }, 'content.auth'],
      ['an unknown auth type', { ...valid, auth: { type: 'password' } }, 'content.auth.type'],
      ['a malformed API key id', { ...valid, auth: { type: 'api_key', api_key_id: 'pk_123' } }, 'content.auth.api_key_id'],
      ['an unknown field', { ...valid, server_url: 'https://elsewhere.example' }, 'content'],
      ['a bad name', { ...valid, name: 'my server!' }, 'content.name'],
    ];
    for (const [what, content, field] of cases) {
      const reply = await alice.post('/artifacts', {
        title: what,
        content_type: mcpClientType,
        content: JSON.stringify(content),
        collection_id: inside,
      });
      assert.equal(reply.status, 400, `${what}: ${reply.text}`);
      assert.equal(reply.body.type, 'urn:platform:problem:validation-error', what);
      assert.ok(
        (reply.body.invalid_params as { name: string }[]).some((p) => p.name === field),
        `${what}: ${JSON.stringify(reply.body.invalid_params)}`,
      );
    }
    const stored = await alice.get(`/artifacts?collection_id=${inside}&content_type=${encodeURIComponent(mcpClientType)}`);
    assert.equal(stored.status, 200, stored.text);
    assert.equal(stored.body.items.length, 0, 'nothing stored');
    // A valid one is stored normalised (duplicates dropped, scopes in their order).
    const id = await configuration(alice, { ...valid, tools: ['get_artifact', 'get_artifact'], scopes: ['search:read', 'artifact:read'] });
    const read = await alice.get(`/artifacts/${id}`);
    assert.deepEqual(JSON.parse(read.body.content).tools, ['get_artifact']);
    assert.deepEqual(JSON.parse(read.body.content).scopes, ['artifact:read', 'search:read']);
  });
});

describe("a configuration's own MCP endpoint", () => {
  it('serves the TypeScript client only the configured tools, within its scopes and workspaces; an edit applies to the next request', async () => {
    const id = await configuration(alice, {
      workspaces: [inside],
      collections: '*',
      // create_artifact needs artifact:write, which the configuration does not grant: never offered.
      tools: ['browse_workspaces', 'get_artifact', 'search', 'create_artifact'],
      scopes: ['artifact:read', 'search:read'],
      auth: { type: 'api_key' },
    });
    // A key that could do and see everything of alice's.
    const key = (await createApiKey(alice, ['artifact:read', 'artifact:write', 'artifact:manage', 'search:read'])).key;
    const client = await connect(id, key);
    try {
      assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
      assert.deepEqual(await listed(client), ['browse_workspaces', 'get_artifact', 'search']);
      assert.match(client.getInstructions() ?? '', /Research assistant|research-assistant/);

      // Outside the configuration: unknown here, though the key may call them on /mcp.
      await refusedAsUnknown(client, 'create_artifact', { title: 'x', content_type: 'text/plain', content: 'x', collection_id: inside });
      await refusedAsUnknown(client, 'manage_artifact', { id: insideNote, action: 'archive' });
      assert.equal((await alice.get(`/artifacts/${insideNote}`)).body.archived_at ?? null, null, 'nothing was archived');

      // Only the configured workspace is there, though the key reaches every one of alice's.
      const browsed = await client.callTool({ name: 'browse_workspaces', arguments: {} });
      assert.notEqual(browsed.isError, true, text(browsed));
      const ids = (browsed.structuredContent as { items: { id: string }[] }).items.map((w) => w.id);
      assert.deepEqual(ids, [inside]);
      const mine = await client.callTool({ name: 'get_artifact', arguments: { id: insideNote } });
      assert.notEqual(mine.isError, true, text(mine));
      const hidden = await client.callTool({ name: 'get_artifact', arguments: { id: outsideNote } });
      assert.equal(hidden.isError, true, 'an artifact in a workspace outside the configuration is not there');
      assert.match(text(hidden), /not found|404/i);
      // The same key on /mcp sees it: the configuration narrowed it, not the key.
      const direct = await fetch(`${platform.url}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'get_artifact', arguments: { id: outsideNote } },
        }),
      });
      assert.notEqual((await direct.json()).result?.isError, true, 'the key itself reaches it on /mcp');

      // An edit applies to the next request: writing granted and create_artifact offered, the workspace list widened.
      const current = await alice.get(`/artifacts/${id}`);
      const content = JSON.parse(current.body.content);
      const edited = await alice.patch(`/artifacts/${id}`, {
        content: JSON.stringify({ ...content, workspaces: [inside, outside], scopes: [...content.scopes, 'artifact:write'] }),
      });
      assert.equal(edited.status, 200, edited.text);
      assert.deepEqual(await listed(client), ['browse_workspaces', 'create_artifact', 'get_artifact', 'search']);
      const created = await client.callTool({
        name: 'create_artifact',
        arguments: { title: 'made through the configuration', content_type: 'text/plain', content: 'x', collection_id: outside },
      });
      assert.notEqual(created.isError, true, text(created));
      const seen = await client.callTool({ name: 'get_artifact', arguments: { id: outsideNote } });
      assert.notEqual(seen.isError, true, text(seen));
    } finally {
      await client.close();
    }
  });

  it("narrows to the token's scopes too: a configured tool the token may not call is not listed, and a call is challenged", async () => {
    const id = await configuration(alice, {
      workspaces: '*',
      collections: '*',
      tools: ['get_artifact', 'search', 'browse_workspaces'],
      scopes: ['artifact:read', 'search:read'],
      auth: { type: 'api_key' },
    });
    const reader = (await createApiKey(alice, ['artifact:read'])).key;
    const client = await connect(id, reader);
    try {
      assert.deepEqual(await listed(client), ['browse_workspaces', 'get_artifact']);
      await assert.rejects(client.callTool({ name: 'search', arguments: { query: 'note' } }), (err: unknown) => {
        assert.ok(err instanceof InsufficientScopeError, String(err));
        assert.match(err.requiredScope ?? '', /search:read/);
        return true;
      });
    } finally {
      await client.close();
    }
    // A 2025-era client (the v1 SDK) sees the same.
    const legacy = new Client({ name: 'mcp-client-test-v1', version: '1.0.0' });
    await legacy.connect(
      new StreamableHTTPClientTransport(endpoint(id), { requestInit: { headers: { authorization: `Bearer ${reader}` } } }),
    );
    try {
      assert.deepEqual(await listed(legacy), ['browse_workspaces', 'get_artifact']);
      await refusedAsUnknown(legacy, 'create_artifact', { title: 'x', content_type: 'text/plain', content: 'x' });
    } finally {
      await legacy.close();
    }
  });

  it('answers 404 to whoever cannot read the configuration, 403 to a credential it is not tied to, 401 with the metadata to sign in', async () => {
    const pinnedKey = await createApiKey(alice, ['artifact:read', 'search:read']);
    const otherKey = await createApiKey(alice, ['artifact:read', 'search:read']);
    const id = await configuration(alice, {
      workspaces: '*',
      collections: '*',
      tools: ['get_artifact'],
      scopes: ['artifact:read'],
      auth: { type: 'api_key', api_key_id: pinnedKey.id },
    });
    const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
    const post = (token: string | null, path = `/mcp/clients/${id}`) =>
      fetch(`${platform.url}${path}`, {
        method: 'POST',
        headers: {
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-11-25',
        },
        body: JSON.stringify(list),
      });

    const stranger = await post(bob.token!);
    assert.equal(stranger.status, 404, 'bob cannot read alice’s configuration');
    assert.equal((await stranger.json()).type, 'urn:platform:problem:not-found');
    const notAConfiguration = await post(alice.token!, `/mcp/clients/${insideNote}`);
    assert.equal(notAConfiguration.status, 404, 'an artifact of another type is no endpoint');
    assert.equal((await post(alice.token!, '/mcp/clients/not-a-uuid')).status, 400);
    const get = await fetch(endpoint(id), { headers: { authorization: `Bearer ${pinnedKey.key}` } });
    assert.equal(get.status, 405, 'stateless: no server stream, as on /mcp');
    assert.equal(get.headers.get('allow'), 'POST');

    const other = await post(otherKey.key);
    assert.equal(other.status, 403, 'another of alice’s keys is not the one it is tied to');
    assert.match((await other.json()).detail, new RegExp(pinnedKey.id));
    const pinned = await post(pinnedKey.key);
    assert.equal(pinned.status, 200);
    assert.deepEqual(
      ((await pinned.json()).result.tools as { name: string }[]).map((t) => t.name),
      ['get_artifact'],
    );

    // Unauthenticated: 401 naming metadata whose resource covers the endpoint, so an OAuth client can sign in.
    const anonymous = await post(null);
    assert.equal(anonymous.status, 401);
    const challenge = anonymous.headers.get('www-authenticate') ?? '';
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)?.[1];
    assert.ok(metadataUrl, challenge);
    const metadata = await (await fetch(metadataUrl)).json();
    assert.ok(endpoint(id).href.startsWith(metadata.resource), `${metadata.resource} covers ${endpoint(id).href}`);
    assert.deepEqual(metadata.authorization_servers, [platform.url]);

    // Archived: switched off until unarchived.
    const archived = await alice.post(`/artifacts/${id}/manage`, { action: 'archive' });
    assert.ok(archived.status < 300, archived.text);
    assert.equal((await post(pinnedKey.key)).status, 409);
  });
});

describe('the rendered client configuration', () => {
  it('renders the endpoint and the snippets for Claude, VS Code and Cursor, without any key', async () => {
    const keyed = await configuration(
      alice,
      {
        name: 'research',
        workspaces: [inside],
        collections: [],
        tools: ['search', 'get_artifact', 'create_artifact'],
        scopes: ['artifact:read', 'search:read'],
        auth: { type: 'api_key' },
      },
      'Keyed',
    );
    const reply = await alice.get(`/artifacts/${keyed}/client-config`);
    assert.equal(reply.status, 200, reply.text);
    const config = reply.body;
    assert.equal(config.endpoint, `${platform.url}/mcp/clients/${keyed}`);
    assert.equal(config.name, 'research');
    assert.deepEqual(config.tools, ['search', 'get_artifact']);
    assert.deepEqual(config.tools_without_scope, ['create_artifact']);
    assert.equal(config.api_key_env, 'PLATFORM_API_KEY');
    const snippet = (client: string) =>
      (config.snippets as { client: string; text: string; path: string | null }[]).find((s) => s.client === client)!;
    assert.equal(
      snippet('claude-code').text,
      `claude mcp add --transport http research ${config.endpoint} --header "Authorization: Bearer $PLATFORM_API_KEY"`,
    );
    const vscode = JSON.parse(snippet('vscode').text);
    assert.equal(snippet('vscode').path, '.vscode/mcp.json');
    assert.deepEqual(vscode.servers.research, {
      type: 'http',
      url: config.endpoint,
      headers: { Authorization: 'Bearer ${input:platform-api-key}' },
    });
    assert.equal(vscode.inputs[0].password, true);
    const cursor = JSON.parse(snippet('cursor').text);
    assert.deepEqual(cursor.mcpServers.research, { url: config.endpoint, headers: { Authorization: 'Bearer ${env:PLATFORM_API_KEY}' } });
    const desktop = JSON.parse(snippet('claude-desktop').text);
    assert.ok(desktop.mcpServers.research.args.includes(config.endpoint));
    assert.ok(!reply.text.includes('pk_'), 'no key is ever rendered');

    const oauth = await configuration(
      alice,
      { workspaces: '*', collections: '*', tools: ['search'], scopes: ['search:read', 'artifact:read'], auth: { type: 'oauth' } },
      'Team Notes (OAuth)',
    );
    const signIn = (await alice.get(`/artifacts/${oauth}/client-config`)).body;
    assert.equal(signIn.name, 'team-notes-oauth', 'named from the title');
    assert.equal(signIn.api_key_env, null);
    const oauthSnippet = (client: string) => (signIn.snippets as { client: string; text: string }[]).find((s) => s.client === client)!;
    assert.equal(oauthSnippet('claude-code').text, `claude mcp add --transport http team-notes-oauth ${signIn.endpoint}`);
    assert.deepEqual(JSON.parse(oauthSnippet('vscode').text), { servers: { 'team-notes-oauth': { type: 'http', url: signIn.endpoint } } });
    assert.deepEqual(JSON.parse(oauthSnippet('cursor').text), { mcpServers: { 'team-notes-oauth': { url: signIn.endpoint } } });
    assert.match(oauthSnippet('claude-desktop').text, new RegExp(signIn.endpoint));

    assert.equal((await bob.get(`/artifacts/${oauth}/client-config`)).status, 404);
    assert.equal((await alice.get(`/artifacts/${insideNote}/client-config`)).status, 404, 'not a configuration');
  });
});
