// The platform as an MCP server, driven by the official SDK Client over real HTTP.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { Client as ClientV2, InsufficientScopeError, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { asServer, createApiKey, createServerCredential } from '../helpers/credentials.js';
import { eventually, type Api } from '../helpers/http.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';
import { commitInto } from '../helpers/commit.js';
import { everythingHttp, registerServer, type Started } from '../helpers/mcp-servers.js';
import { FakeOpenAI } from '../helpers/openai-server.js';
import { missingScope, tools } from '../../src/mcp-server/tools.js';
import { ScopeSet, scopes as knownScopes } from '../../src/identity/principal.js';

let platform: TestPlatform;
let alice: Api & { userId: string };
let model: FakeOpenAI;
let everything: Started;
const clients: Client[] = [];

/** A browser page's origin the deployment lists (MCP_ALLOWED_ORIGINS): CORS answers it. */
const webClient = 'https://mcp-client.example';

before(async () => {
  // A model (the one stand-in allowed) for ask and extract_information; by default it fails, so ask answers with passages.
  model = await new FakeOpenAI().start();
  model.reply = () => ({ status: 500 });
  everything = await everythingHttp();
  platform = await startPlatform({
    MCP_ALLOWED_ORIGINS: webClient,
    MCP_OUTBOUND_ALLOW: '127.0.0.0/8',
    LLM_MODEL: 'test-model',
    OPENAI_BASE_URL: model.url,
    OPENAI_API_KEY: 'sk-test',
    LLM_TIMEOUT_SECONDS: '5',
  });
  alice = await platform.newUser();
});
after(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  await platform?.close();
  await Promise.allSettled([model?.close(), everything?.close()]);
});

async function mcp(token: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'platform-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${platform.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}`, ...headers } },
    }),
  );
  clients.push(client);
  return client;
}

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

type Result = Awaited<ReturnType<Client['callTool']>>;
const text = (r: Result) => (r.content as { type: string; text: string }[])[0]!.text;
const data = (r: Result) => {
  assert.ok(!r.isError, text(r));
  return r.structuredContent as Record<string, any>;
};

describe('MCP endpoint', () => {
  it('publishes discovery and protected resource metadata, and asks for a token with resource_metadata', async () => {
    const discovery = await platform.api.get('/.well-known/mcp.json');
    assert.equal(discovery.body.endpoints.streamable_http, '/mcp');
    assert.equal(discovery.body.tools.length, 19);
    assert.match(discovery.body.icon, /^data:image\/svg\+xml;base64,/);
    const meta = await platform.api.get('/.well-known/oauth-protected-resource/mcp');
    assert.equal(meta.body.resource, `${platform.url}/mcp`, 'the URL the client used (127.0.0.1; the configured one is localhost)');
    const refused = await platform.api.post('/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    assert.equal(refused.status, 401);
    assert.match(refused.headers.get('www-authenticate')!, /resource_metadata="[^"]+\/.well-known\/oauth-protected-resource\/mcp"/);
    for (const method of ['GET', 'PUT', 'DELETE', 'PATCH']) {
      const wrong = await platform.api.request(method, '/mcp');
      assert.equal(wrong.status, 405, `${method} /mcp`);
      assert.equal(wrong.headers.get('allow'), 'POST', `${method} /mcp lists only the method that works`);
      assert.equal(wrong.body.type, 'urn:platform:problem:method-not-allowed');
    }
    const foreign = await alice.request('POST', '/mcp', {
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      headers: { origin: 'https://evil.example' },
    });
    assert.equal(foreign.status, 403, 'a foreign browser origin is refused (DNS rebinding)');
    const asHost = (host: string) =>
      new Promise<number>((resolve, reject) => {
        const req = request(`${platform.url}/mcp`, { method: 'POST', headers: { host, 'content-type': 'application/json' } }, (res) => {
          res.resume();
          resolve(res.statusCode!);
        });
        req.on('error', reject);
        req.end('{}');
      });
    assert.equal(await asHost('rebound.example:80'), 403, 'a foreign Host is refused before authentication');
    assert.equal(await asHost(`[::1]:${platform.config.PORT}`), 401, 'loopback on our port passes on to authentication');
    const as = await platform.api.get('/.well-known/oauth-authorization-server');
    assert.equal(as.body.token_endpoint, `${platform.url}/auth/token`);
  });

  it('lists the fourteen purposeful tools, with annotations and icons, and no raw CRUD or collection tools', async () => {
    const client = await mcp(alice.token!);
    // No stream outlives a stateless request: list_changed is not promised; instructions and icons per the protocol.
    assert.notEqual(client.getServerCapabilities()?.tools?.listChanged, true);
    assert.notEqual(client.getServerCapabilities()?.resources?.listChanged, true);
    assert.match(client.getInstructions() ?? '', /collections/);
    assert.match((client.getServerVersion() as { icons?: { src: string }[] }).icons?.[0]?.src ?? '', /^data:image\/svg\+xml;base64,/);
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), [
      'ask',
      'browse_collections',
      'browse_workspaces',
      'call_server_tool',
      'commit_preview',
      'commit_workspace',
      'create_artifact',
      'extract_information',
      'get_artifact',
      'get_import',
      'get_view_results',
      'import_artifacts',
      'manage_artifact',
      'relay_status',
      'search',
      'start_stream',
      'stop_stream',
      'stream_status',
      'update_artifact',
    ]);
    const preview = tools.find((t) => t.name === 'commit_preview')!;
    assert.equal(preview.annotations?.readOnlyHint, true);
    assert.equal(tools.find((t) => t.name === 'manage_artifact')!.annotations?.destructiveHint, true);
    for (const t of tools) assert.equal(t.outputSchema?.type, 'object', `${t.name}: an output schema, an object at its root`);
    assert.ok(tools.every((t) => typeof t._meta?.icon === 'string' && t.description && t.inputSchema.type === 'object'));
    for (const t of tools)
      assert.match(t.icons?.[0]?.src ?? '', /^data:image\/svg\+xml;base64,/, `${t.name}: an icon in the protocol's field`);
  });

  it('serves protocol 2026-07-28 to the SDK v2 client next to 2025-11-25, with the same sign-in, tools and answers', async () => {
    const modern = new ClientV2({ name: 'platform-test-v2', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await modern.connect(
      new TransportV2(new URL(`${platform.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${alice.token!}` } } }),
    );
    try {
      assert.equal(modern.getNegotiatedProtocolVersion(), '2026-07-28');
      const legacy = await mcp(alice.token!);
      const [modernTools, legacyTools] = [(await modern.listTools()).tools, (await legacy.listTools()).tools];
      assert.deepEqual(
        modernTools.map((t) => [t.name, t.inputSchema, t.icons]),
        legacyTools.map((t) => [t.name, t.inputSchema, t.icons]),
        'one tool list for both eras',
      );
      const ws = (await alice.post('/workspaces', { name: 'Modern client' })).body.id;
      const created = await modern.callTool({
        name: 'create_artifact',
        arguments: { title: 'From 2026-07-28', content_type: 'text/plain', content: 'x', collection_id: ws },
      });
      assert.ok(!created.isError, JSON.stringify(created.content));
      const id = (created.structuredContent as { id: string }).id;
      const read = await legacy.callTool({ name: 'get_artifact', arguments: { id } });
      assert.equal(data(read).title, 'From 2026-07-28', 'a 2025-11-25 client reads what a 2026-07-28 client wrote');
      const refused = await modern.callTool({ name: 'get_artifact', arguments: { id: '01a2005a-c983-73be-abc3-2995c82b1866' } });
      assert.equal(refused.isError, true);
      assert.equal((refused._meta?.['platform/problem'] as { status: number }).status, 404);
      const resource = await modern.readResource({ uri: `platform://workspaces/${ws}` });
      assert.equal(JSON.parse((resource.contents[0] as { text: string }).text).name, 'Modern client');
    } finally {
      await modern.close();
    }
  });

  it("answers CORS for MCP_ALLOWED_ORIGINS and the API's own origin, never for others", async () => {
    const preflight = (origin: string) =>
      platform.api.request('OPTIONS', '/mcp', {
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization, mcp-protocol-version',
        },
      });
    for (const origin of [webClient, new URL(platform.config.apiUri).origin]) {
      const ok = await preflight(origin);
      assert.equal(ok.status, 204, `${origin}: ${ok.text}`);
      assert.equal(ok.headers.get('access-control-allow-origin'), origin);
      assert.match(ok.headers.get('access-control-allow-headers')!, /Mcp-Protocol-Version/);
      assert.match(ok.headers.get('access-control-allow-methods')!, /PATCH/);
    }
    const foreign = await preflight('https://evil.example');
    assert.equal(foreign.status, 403);
    assert.equal(foreign.headers.get('access-control-allow-origin'), null);
    // The sign-in challenge is readable by the listed page: the header a browser client needs to find the authorization server.
    const challenged = await platform.api.request('POST', '/mcp', {
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      headers: { origin: webClient },
    });
    assert.equal(challenged.status, 401);
    assert.equal(challenged.headers.get('access-control-allow-origin'), webClient);
    assert.match(challenged.headers.get('access-control-expose-headers')!, /WWW-Authenticate/);
    assert.match(challenged.headers.get('vary')!, /origin/i);
    const listed = await alice.request('POST', '/mcp', {
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      headers: { origin: webClient, accept: 'application/json, text/event-stream' },
    });
    assert.equal(listed.status, 200, 'a listed origin may call /mcp');
    assert.equal(listed.body.result.tools.length, 19);
    assert.equal(listed.headers.get('access-control-allow-origin'), webClient, 'on the MCP answer too');
  });

  it('refuses a call to a tool the token lacks the scope of with 403 insufficient_scope, naming the scopes to ask for, in both eras', async () => {
    const id = '01a2005a-c983-73be-abc3-2995c82b1866';
    const samples: Record<string, Record<string, unknown>> = {
      search: { query: 'x' },
      get_artifact: { id },
      browse_collections: {},
      browse_workspaces: {},
      ask: { question: 'x' },
      create_artifact: { title: 'x', content_type: 'text/plain', content: 'x' },
      update_artifact: { id, title: 'x' },
      manage_artifact: { id, action: 'archive' },
      extract_information: { artifact_ids: [id], schema: { type: 'object' } },
      commit_preview: { workspace_id: id, collection_id: id },
      commit_workspace: { workspace_id: id, collection_id: id, message: 'm' },
      import_artifacts: { workspace_id: id, items: [{ title: 'x', content_type: 'text/plain', content: 'x' }] },
      get_import: { import_id: id },
      get_view_results: { view_id: id },
      stream_status: { stream_id: id },
      start_stream: { stream_id: id },
      stop_stream: { stream_id: id },
      relay_status: {},
      call_server_tool: { server_id: id, name: 'echo', arguments: { message: 'x' } },
    };
    assert.deepEqual(
      tools.map((t) => t.name).filter((n) => !samples[n]),
      [],
      'a sample for every tool',
    );
    const held = ['stream:read', 'search:read'];
    const key = (await createApiKey(alice, held)).key;
    const metadata = `${platform.url}/.well-known/oauth-protected-resource/mcp`;
    for (const tool of tools) {
      const reply = await platform.api.request('POST', '/mcp', {
        body: { jsonrpc: '2.0', id: `call-${tool.name}`, method: 'tools/call', params: { name: tool.name, arguments: samples[tool.name] } },
        headers: { authorization: `Bearer ${key}`, accept: 'application/json, text/event-stream' },
      });
      assert.equal(reply.status, 403, `${tool.name}: ${reply.text}`);
      // Search and ask need artifact:read besides search:read: the scope missing is that one.
      const missing = tool.access === 'search:read' || tool.access === 'stream:read' ? 'artifact:read' : tool.access;
      // RFC 6750 §3: the scopes to ask for are the token's and the missing one (in the order scopes_supported lists them).
      const wanted = knownScopes.filter((s) => s === missing || held.includes(s));
      assert.equal(
        reply.headers.get('www-authenticate'),
        `Bearer error="insufficient_scope", scope="${wanted.join(' ')}", resource_metadata="${metadata}", ` +
          `error_description="The tool ${tool.name} needs the ${missing} scope, which your token does not carry."`,
      );
      assert.match(reply.headers.get('content-type')!, /^application\/json/);
      assert.equal(reply.body.id, `call-${tool.name}`, 'a JSON-RPC error for the request');
      assert.equal(reply.body.error.code, -32600);
      assert.deepEqual(reply.body.error.data, {
        type: 'urn:platform:problem:insufficient-scope',
        status: 403,
        detail: reply.body.error.message,
        required_scope: missing,
      });
    }
    // What the SDK clients make of it without an OAuth provider to step up with: v2 (2026-07-28) an
    // InsufficientScopeError with the challenge, v1 (2025-11-25) an HTTP error; neither a result.
    const reader = (await createApiKey(alice, ['artifact:read', 'search:read'])).key;
    const modern = new ClientV2({ name: 'platform-test-v2', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await modern.connect(
      new TransportV2(new URL(`${platform.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${reader}` } } }),
    );
    try {
      assert.equal(modern.getNegotiatedProtocolVersion(), '2026-07-28');
      await assert.rejects(modern.callTool({ name: 'create_artifact', arguments: samples.create_artifact }), (err: unknown) => {
        assert.ok(err instanceof InsufficientScopeError, String(err));
        assert.equal(err.requiredScope, 'artifact:read artifact:write search:read');
        assert.equal(err.resourceMetadataUrl?.href, metadata);
        return true;
      });
      const searched = await modern.callTool({ name: 'search', arguments: { query: 'x' } });
      assert.notEqual(searched.isError, true, 'a tool the token may call still answers');
    } finally {
      await modern.close();
    }
    const legacy = await mcp(reader);
    await assert.rejects(legacy.callTool({ name: 'create_artifact', arguments: samples.create_artifact }), (err: unknown) => {
      assert.ok(err instanceof StreamableHTTPError, String(err));
      assert.equal(err.code, 403);
      return true;
    });
  });

  it('lists only the tools the token may call, in both eras', async () => {
    const names = (scopes: string[]) =>
      tools
        .filter((t) => !missingScope(new ScopeSet(scopes), t))
        .map((t) => t.name)
        .sort();
    for (const scopes of [['artifact:read'], ['search:read', 'artifact:invoke'], ['stream:read']]) {
      const key = (await createApiKey(alice, scopes)).key;
      const legacy = await mcp(key);
      assert.deepEqual((await legacy.listTools()).tools.map((t) => t.name).sort(), names(scopes), `2025-11-25, ${scopes}`);
      const modern = new ClientV2({ name: 'platform-test-v2', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
      await modern.connect(
        new TransportV2(new URL(`${platform.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }),
      );
      try {
        assert.deepEqual((await modern.listTools()).tools.map((t) => t.name).sort(), names(scopes), `2026-07-28, ${scopes}`);
      } finally {
        await modern.close();
      }
    }
    assert.deepEqual(names(['stream:read']), [], 'a token with no tool scope lists none');
    assert.ok(!names(['search:read', 'artifact:invoke']).includes('search'), 'search needs artifact:read too');
    assert.equal((await platform.api.get('/.well-known/mcp.json')).body.tools.length, tools.length, 'the public discovery lists them all');
  });

  it('creates, reads, searches, updates and manages drafts through tools', async () => {
    const client = await mcp(alice.token!);
    const ws = (await alice.post('/workspaces', { name: 'mcp' })).body.id;
    const created = data(
      await client.callTool({
        name: 'create_artifact',
        arguments: { title: 'Turbine notes', content_type: 'text/markdown', content: 'blade flutter at high speed', collection_id: ws },
      }),
    );
    assert.equal(created.provenance.source.kind, 'mcp');
    assert.equal(data(await client.callTool({ name: 'get_artifact', arguments: { id: created.id } })).title, 'Turbine notes');
    const found = await eventually(async () => {
      const r = data(await client.callTool({ name: 'search', arguments: { query: 'blade flutter' } }));
      return r.results.some((h: { id: string }) => h.id === created.id) ? r : null;
    });
    assert.ok(found);
    assert.equal(
      data(await client.callTool({ name: 'update_artifact', arguments: { id: created.id, title: 'Turbine notes 2' } })).title,
      'Turbine notes 2',
    );
    const empty = await client.callTool({ name: 'update_artifact', arguments: { id: created.id } });
    assert.equal(empty.isError, true, 'an update that changes nothing is refused');
    assert.equal(
      data(await client.callTool({ name: 'manage_artifact', arguments: { id: created.id, action: 'archive' } })).state,
      'archived',
    );
    const browsed = data(await client.callTool({ name: 'browse_workspaces', arguments: { with_artifacts: true } }));
    assert.ok(browsed.items.find((w: { id: string }) => w.id === ws).artifacts.some((a: { id: string }) => a.id === created.id));
  });

  it('answers bad input, invisible resources and refused writes as tool errors (a missing scope: see the 403 test above)', async () => {
    const client = await mcp(alice.token!);
    const bad = await client.callTool({ name: 'get_artifact', arguments: { id: 'not-a-uuid' } });
    assert.equal(bad.isError, true);
    const noCollection = await client.callTool({
      name: 'commit_preview',
      arguments: { workspace_id: '01a2005a-c983-73be-abc3-2995c82b1866' },
    });
    assert.equal(noCollection.isError, true);
    assert.match(text(noCollection), /is required/, 'a missing id is reported as missing, not as a malformed UUID');
    assert.doesNotMatch(text(noCollection), /must be a UUID/);
    const missing = await client.callTool({ name: 'get_artifact', arguments: { id: '01a2005a-c983-73be-abc3-2995c82b1866' } });
    assert.equal(missing.isError, true);
    assert.match(text(missing), /not-found/);
    // The model fails here (its default in this file): ask answers with the passages and says so.
    const created = data(
      await client.callTool({
        name: 'create_artifact',
        arguments: { title: 'Turbines', content_type: 'text/markdown', content: 'Turbine blades flutter at high speed.' },
      }),
    );
    const asked = data(await client.callTool({ name: 'ask', arguments: { question: 'turbine blade flutter?' } }));
    assert.ok(['extractive', 'none'].includes(asked.mode), JSON.stringify(asked));
    assert.equal(asked.answer, null);
    const badSchema = await client.callTool({
      name: 'extract_information',
      arguments: { artifact_ids: [created.id], schema: { type: 'wat' } },
    });
    assert.equal(badSchema.isError, true);
    assert.match(text(badSchema), /not a valid JSON Schema/);
    const relays = await client.callTool({ name: 'relay_status', arguments: {} });
    assert.equal(relays.isError ?? false, false, text(relays));
    assert.deepEqual(relays.structuredContent, { hosts: [] }, 'no host yet: test/relay covers hosts and their relays');

    const col = (await alice.post('/collections', { name: 'no direct writes' })).body.id;
    const intoCollection = await client.callTool({
      name: 'create_artifact',
      arguments: { title: 'x', content_type: 'text/plain', content: 'x', collection_id: col },
    });
    assert.equal(intoCollection.isError, true, 'collections change only through commits');
    assert.equal(
      (intoCollection._meta?.['platform/problem'] as { type: string }).type,
      'urn:platform:problem:collection-write-requires-commit',
    );
    assert.equal((await alice.get(`/artifacts?collection_id=${col}`)).body.items.length, 0);

    const ws = (await alice.post('/workspaces', { name: 'filtered out' })).body.id;
    const other = (await alice.post('/workspaces', { name: 'allowed' })).body.id;
    const filtered = await mcp(
      (await asServer(platform.url, await createServerCredential(alice, ['artifact:read'], { workspaces: [other] }))).token!,
    );
    const hidden = await filtered.callTool({ name: 'commit_preview', arguments: { workspace_id: ws, collection_id: col } });
    assert.equal(hidden.isError, true);
    await assert.rejects(filtered.readResource({ uri: `platform://workspaces/${ws}` }));
  });

  it('gives the SDK client a readable isError result, not an exception, when a tool with an output schema fails', async () => {
    const client = await mcp(alice.token!);
    await client.listTools(); // the SDK validates structuredContent against the schemas it has listed
    const nowhere = '01a2005a-c983-73be-abc3-2995c82b1866';
    const failing: Record<string, Record<string, unknown>> = {
      search: { query: 'x', limit: 1_000_000 },
      browse_collections: { cursor: 'not-a-cursor' },
      browse_workspaces: { cursor: 'not-a-cursor' },
      manage_artifact: { action: 'archive', id: nowhere },
      commit_workspace: { workspace_id: nowhere, collection_id: nowhere },
      import_artifacts: { workspace_id: nowhere, items: [{ title: 'x', content_type: 'text/plain', content: 'x' }] },
      relay_status: { workspace_id: nowhere },
      get_artifact: { id: nowhere },
      ask: { question: 'x', limit: 1000 },
      create_artifact: { title: 'x', content_type: 'text/plain', content: 'x', collection_id: nowhere },
      update_artifact: { id: nowhere, title: 'x' },
      extract_information: { artifact_ids: [nowhere], schema: { type: 'object' } },
      commit_preview: { workspace_id: nowhere, collection_id: nowhere },
      get_import: { import_id: nowhere },
      get_view_results: { view_id: nowhere },
      stream_status: { stream_id: nowhere },
      start_stream: { stream_id: nowhere },
      stop_stream: { stream_id: nowhere },
      call_server_tool: { server_id: nowhere, name: 'echo' },
    };
    assert.deepEqual(
      Object.keys(failing).sort(),
      tools.map((t) => t.name).sort(),
      'a failing call for every tool (each has an output schema)',
    );
    for (const [name, args] of Object.entries(failing)) {
      const result = await client.callTool({ name, arguments: args });
      assert.equal(result.isError, true, `${name}: ${JSON.stringify(result)}`);
      assert.ok(text(result).length > 10, `${name} says what went wrong`);
      assert.equal(result.structuredContent, undefined, `${name}: no structuredContent outside its output schema`);
    }
    const missing = await client.callTool({ name: 'manage_artifact', arguments: failing.manage_artifact! });
    const problem = (missing._meta as Record<string, { type: string; status: number }>)['platform/problem']!;
    assert.equal(problem.type, 'urn:platform:problem:not-found');
    assert.equal(problem.status, 404);
  });

  it('answers every tool with structured content that its published output schema accepts (ajv, JSON Schema 2020-12)', async () => {
    const client = new ClientV2({ name: 'platform-test-v2', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(
      new TransportV2(new URL(`${platform.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${alice.token!}` } } }),
    );
    const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
    const schemas = new Map((await client.listTools()).tools.map((t) => [t.name, ajv.compile(t.outputSchema!)]));
    const checked = new Set<string>();
    const call = async (name: string, args: Record<string, unknown>) => {
      const result = await client.callTool({ name, arguments: args });
      assert.notEqual(result.isError, true, `${name}: ${JSON.stringify(result.content)}`);
      const validate = schemas.get(name)!;
      assert.ok(
        validate(result.structuredContent),
        `${name}: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(result.structuredContent)}`,
      );
      checked.add(name);
      return result.structuredContent as Record<string, any>;
    };
    try {
      const ws = (await alice.post('/workspaces', { name: 'Output schemas' })).body.id;
      const col = (await alice.post('/collections', { name: 'Output schemas target' })).body.id;
      const note = {
        title: 'Gearbox',
        content_type: 'text/markdown',
        content: 'Gearbox oil is changed every 400 hours.',
        collection_id: ws,
      };
      const created = await call('create_artifact', note);
      await call('get_artifact', { id: created.id });
      await call('update_artifact', { id: created.id, context: { topic: 'gearbox' } });
      const other = await call('create_artifact', { ...note, title: 'To archive' });
      assert.equal((await call('manage_artifact', { id: other.id, action: 'archive' })).state, 'archived');
      await call('browse_workspaces', { with_artifacts: true });
      await call('browse_collections', { with_artifacts: true });
      await eventually(async () =>
        (await call('search', { query: 'gearbox oil' })).results.some((r: { id: string }) => r.id === created.id),
      );
      assert.equal((await call('ask', { question: 'How often is gearbox oil changed?' })).mode, 'extractive', 'the model fails: passages');
      model.reply = (req) =>
        req.response_format?.json_schema?.schema && 'data' in ((req.response_format.json_schema.schema.properties as object) ?? {})
          ? { content: { data: { hours: 400 } } }
          : { content: { answer: 'Every 400 hours.', citations: [created.id] } };
      try {
        assert.equal((await call('ask', { question: 'How often is gearbox oil changed?' })).mode, 'llm');
        const schema = { type: 'object', properties: { hours: { type: 'number' } }, required: ['hours'], additionalProperties: false };
        const run = await call('extract_information', { artifact_ids: [created.id], schema, title: 'Interval' });
        assert.equal(run.status, 'awaiting_decision', JSON.stringify(run));
      } finally {
        model.reply = () => ({ status: 500 });
      }
      assert.deepEqual((await call('commit_preview', { workspace_id: ws, collection_id: col })).counts, {
        new: 1,
        modified: 0,
        unchanged: 0,
      });
      await call('commit_workspace', { workspace_id: ws, collection_id: col, message: 'schemas' });
      const imported = await call('import_artifacts', {
        workspace_id: ws,
        items: [{ title: 'Imported', content_type: 'text/plain', content: 'x' }],
      });
      await eventually(async () => (await call('get_import', { import_id: imported.id })).state === 'completed');
      await call('relay_status', {});
      const view = await alice.post('/artifacts', {
        title: 'Gearbox view',
        content_type: 'application/vnd.platform.view+json',
        content: JSON.stringify({ sources: { workspaces: [ws] }, filter: { context: { topic: 'gearbox' } } }),
        collection_id: ws,
      });
      assert.equal((await call('get_view_results', { view_id: view.body.id })).items[0].id, created.id);
      const key = await alice.post('/secrets', { name: 'stream key', value: 'k'.repeat(24) });
      const stream = await alice.post('/artifacts', {
        title: 'Stream',
        content_type: 'application/vnd.platform.stream+json',
        content: JSON.stringify({ source: { mode: 'push' }, key_secret_id: key.body.id, record: { stills: { every_seconds: 5 } } }),
        collection_id: ws,
      });
      assert.equal((await call('stream_status', { stream_id: stream.body.id })).state, 'idle');
      assert.equal((await call('start_stream', { stream_id: stream.body.id })).state, 'listening');
      assert.equal((await call('stop_stream', { stream_id: stream.body.id })).state, 'ended');
      const server = await registerServer(alice, ws, { transport: { type: 'http', url: everything.url } }, 'everything');
      const echoed = await call('call_server_tool', { server_id: server, name: 'echo', arguments: { message: 'schemas' } });
      assert.match(JSON.stringify(echoed.result), /schemas/);
      assert.deepEqual([...checked].sort(), tools.map((t) => t.name).sort(), 'every tool checked');
    } finally {
      await client.close();
    }
  });

  it('commit_workspace only proposes: nothing is committed until a person approves over REST', async () => {
    const client = await mcp(alice.token!);
    const ws = (await alice.post('/workspaces', { name: 'to commit' })).body.id;
    const col = (await alice.post('/collections', { name: 'target' })).body.id;
    await alice.post('/artifacts', { title: 'Draft', content_type: 'text/plain', content: 'reviewed text', collection_id: ws });
    const preview = data(await client.callTool({ name: 'commit_preview', arguments: { workspace_id: ws, collection_id: col } }));
    assert.deepEqual(preview.counts, { new: 1, modified: 0, unchanged: 0 });
    const propose = () =>
      client.callTool({
        name: 'commit_workspace',
        arguments: { workspace_id: ws, collection_id: col, message: 'from an agent', idempotency_key: 'agent-run-1' },
      });
    const proposed = data(await propose());
    assert.equal(proposed.status, 'awaiting_human_approval');
    assert.deepEqual(proposed.preview, { counts: { new: 1, modified: 0, unchanged: 0 } });
    assert.equal(data(await propose()).commit_id, proposed.commit_id, 'a retried proposal is the same commit');
    assert.match(proposed.approve, new RegExp(`/commits/${proposed.commit_id}/approve`));
    await eventually(async () => (await alice.get(`/commits/${proposed.commit_id}`)).body.state === 'awaiting_approval');
    assert.equal((await alice.get(`/artifacts?collection_id=${col}`)).body.items.length, 0, 'nothing committed yet');
    assert.equal((await alice.post(`/commits/${proposed.commit_id}/approve`, {})).status, 200);
    await eventually(async () => (await alice.get(`/commits/${proposed.commit_id}`)).body.state === 'committed');
    assert.equal((await alice.get(`/artifacts?collection_id=${col}`)).body.items.length, 1);
  });

  it('acts for a person through X-On-Behalf-Of, with the credential recorded', async () => {
    const ws = (await alice.post('/workspaces', { name: 'delegated' })).body.id;
    const cred = await createServerCredential(await platform.newUser(), ['artifact:read', 'artifact:write']);
    const server = await asServer(platform.url, cred);
    const refused = await server.request('POST', '/mcp', {
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      headers: { 'x-on-behalf-of': alice.userId, accept: 'application/json, text/event-stream' },
    });
    assert.equal(refused.status, 403, 'no consent yet');
    await alice.post('/consents', { credential_kind: 'server_credential', credential_id: cred.client_id });
    const client = await mcp(server.token!, { 'x-on-behalf-of': alice.userId });
    const created = data(
      await client.callTool({
        name: 'create_artifact',
        arguments: { title: 'For Alice', content_type: 'text/plain', content: 'x', collection_id: ws },
      }),
    );
    assert.equal(created.provenance.created_by, alice.userId);
    assert.deepEqual(created.provenance.source.via, { kind: 'server_credential', id: cred.client_id });
    await client.callTool({ name: 'get_artifact', arguments: { id: '01a2005a-c983-73be-abc3-2995c82b1866' } });
    const audit = await platform.services.audit.forPerson(alice.userId, 20);
    assert.ok(
      audit.some((a) => a.credential_id === cred.client_id && a.path === 'tools/call create_artifact' && a.status === 200),
      'each tool call audited',
    );
    assert.ok(
      audit.some((a) => a.path === 'tools/call get_artifact' && a.status === 404),
      'with its outcome',
    );
  });

  it('never mixes up callers, however many calls run at once', async () => {
    const bob = await platform.newUser();
    const mine = (await alice.post('/workspaces', { name: 'alice only' })).body.id;
    const theirs = (await bob.post('/workspaces', { name: 'bob only' })).body.id;
    const [a, b] = await Promise.all([mcp(alice.token!), mcp(bob.token!)]);
    const calls = Array.from({ length: 20 }, (_, i) => (i % 2 ? [b, theirs, mine] : [a, mine, theirs]) as [Client, string, string]);
    await Promise.all(
      calls.map(async ([client, own, other]) => {
        const ids = data(await client.callTool({ name: 'browse_workspaces', arguments: {} })).items.map((w: { id: string }) => w.id);
        assert.ok(ids.includes(own) && !ids.includes(other));
      }),
    );
  });

  it('lists collections as resources and reads them with a truncated artifact list', async () => {
    const client = await mcp(alice.token!);
    const col = (await alice.post('/collections', { name: 'Readable' })).body.id;
    const browsed = data(await client.callTool({ name: 'browse_collections', arguments: { with_artifacts: true, limit: 100 } }));
    assert.deepEqual(browsed.items.find((c: { id: string }) => c.id === col).artifacts, []);
    const { resources } = await client.listResources();
    assert.ok(resources.some((r) => r.uri === `platform://collections/${col}`));
    assert.ok(
      resources.filter((r) => !r.uri.startsWith('ui://')).every((r) => r.uri.startsWith('platform://collections/')),
      'only collections are listed (besides the MCP Apps pages)',
    );
    const read = await client.readResource({ uri: `platform://collections/${col}` });
    const body = JSON.parse((read.contents[0] as { text: string }).text);
    assert.equal(body.name, 'Readable');
    assert.equal(body.artifacts_truncated, false);
    assert.equal(body.artifacts_bound, 50);
    await commitInto(
      alice,
      col,
      Array.from({ length: 51 }, (_, i) => ({ title: `Entry ${i}` })),
    );
    const full = JSON.parse(((await client.readResource({ uri: `platform://collections/${col}` })).contents[0] as { text: string }).text);
    assert.equal(full.artifacts.length, 50);
    assert.equal(full.artifacts_truncated, true, 'the answer says it was cut');
    await assert.rejects(client.readResource({ uri: 'platform://collections/01a2005a-c983-73be-abc3-2995c82b1866' }), (err: Error) => {
      // Not found is Invalid params with the URI (2026-07-28's code; the SDK v2 sends it to 2025 clients too, for -32002).
      assert.match(err.message, /-32602/);
      assert.equal((err as Error & { data?: { uri?: string } }).data?.uri, 'platform://collections/01a2005a-c983-73be-abc3-2995c82b1866');
      assert.equal(err.message.match(/MCP error/g)?.length, 1, `the prefix once: ${err.message}`);
      return true;
    });
    const ws = (await alice.post('/workspaces', { name: 'By URI' })).body.id;
    assert.equal(
      JSON.parse(((await client.readResource({ uri: `platform://workspaces/${ws}` })).contents[0] as { text: string }).text).name,
      'By URI',
    );
  });
});
