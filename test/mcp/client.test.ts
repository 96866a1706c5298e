// The platform as an MCP client, against real third-party servers: @modelcontextprotocol/server-everything
// over stdio (through npx) and Streamable HTTP, mcp-server-time from PyPI through uvx, and Python's
// http.server as a server that answers 5xx.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { Api, eventually } from '../helpers/http.js';
import { createApiKey } from '../helpers/credentials.js';
import { everythingHttp, mcpServerType, pythonHttpServer, registerServer, type Started } from '../helpers/mcp-servers.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';
import { freePort } from '../../temporal-dev/engines.js';
import { openedHistoryText } from '../helpers/history.js';

let platform: TestPlatform;
let alice: Api & { userId: string };
let ws: string;
let everything: Started;
let python: Started;

async function register(api: Api, workspace: string, content: unknown, title = 'server') {
  return api.post('/artifacts', { title, content_type: mcpServerType, content: JSON.stringify(content), collection_id: workspace });
}

const registered = (content: unknown, title?: string) => registerServer(alice, ws, content, title);

const stdioEverything = {
  transport: { type: 'stdio', command: 'npx', args: ['--no-install', '@modelcontextprotocol/server-everything', 'stdio'] },
};
const textOf = (result: { content: { type: string; text?: string }[] }) => result.content.map((c) => c.text ?? '').join('');

before(async () => {
  platform = await startPlatform({ ALLOW_STDIO_MCP_SERVERS: 'true', MCP_OUTBOUND_ALLOW: '127.0.0.0/8,::1/128' }, { worker: true });
  alice = await platform.newUser();
  ws = (await alice.post('/workspaces', { name: 'tools' })).body.id;
  [everything, python] = await Promise.all([everythingHttp(), pythonHttpServer()]);
});
after(async () => {
  await platform?.close();
  await Promise.all([everything?.close(), python?.close()]);
});

describe('calling tools', () => {
  let stdioId: string;
  let httpId: string;
  before(async () => {
    stdioId = await registered(stdioEverything, 'everything (stdio)');
    httpId = await registered({ transport: { type: 'http', url: everything.url } }, 'everything (http)');
  });

  it('calls a tool over stdio (npx) as a workflow the Temporal UI can find by workspace, server, tool and principal', async () => {
    const r = await alice.post(`/artifacts/${stdioId}/invoke`, { name: 'echo', arguments: { message: 'hello over stdio' } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.status, 'completed');
    assert.equal(r.body.result.isError ?? false, false);
    assert.match(textOf(r.body.result), /hello over stdio/);
    const described = await platform.services.temporal.workflow.getHandle(r.body.workflow_id).describe();
    const attrs = described.searchAttributes as Record<string, unknown[]>;
    assert.deepEqual(attrs.WorkspaceId, [ws]);
    assert.deepEqual(attrs.ArtifactId, [stdioId]);
    assert.deepEqual(attrs.McpTool, ['echo']);
    assert.deepEqual(attrs.PrincipalId, [alice.userId]);
    assert.deepEqual(attrs.RunKind, ['mcp_tool_call']);
    const polled = await alice.get(`/invocations/${r.body.invocation_id}`);
    assert.equal(polled.status, 200, polled.text);
    assert.equal(polled.body.status, 'completed');
    assert.deepEqual(polled.body.result, r.body.result);
  });

  it("keeps the catalog fresh on the server's notifications/tools/list_changed", async () => {
    // server-everything registers more tools once it knows the client's capabilities, and says so (over
    // stdio at once; over HTTP on the standalone stream, which may open after the notification went).
    await eventually(async () =>
      platform.logs.some((l) => l.includes('MCP server tools changed: catalog refreshed') && l.includes(stdioId)),
    );
  });

  it('calls a tool over Streamable HTTP, reusing the connection across calls', async () => {
    for (const [a, b] of [
      [2, 3],
      [5, 8],
    ] as const) {
      const r = await alice.post(`/artifacts/${httpId}/invoke`, { name: 'get-sum', arguments: { a, b } });
      assert.equal(r.status, 200, r.text);
      assert.match(textOf(r.body.result), new RegExp(`${a + b}`));
    }
  });

  it('calls a Python server from PyPI through uvx', async () => {
    const id = await registered(
      { transport: { type: 'stdio', command: 'uvx', args: ['--offline', 'mcp-server-time==2026.10.19'] } },
      'time',
    );
    const r = await alice.post(`/artifacts/${id}/invoke`, { name: 'get_current_time', arguments: { timezone: 'Europe/Paris' } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.result.isError ?? false, false, textOf(r.body.result));
    assert.match(textOf(r.body.result), /Europe\/Paris/);
  });

  it('reports a failing tool as an error result, without retrying it', async () => {
    const unknown = await alice.post(`/artifacts/${httpId}/invoke`, { name: 'no-such-tool', arguments: {} });
    assert.equal(unknown.status, 200, unknown.text);
    assert.equal(unknown.body.result.isError, true);
    assert.match(textOf(unknown.body.result), /no-such-tool/);
    const invalid = await alice.post(`/artifacts/${httpId}/invoke`, { name: 'get-sum', arguments: { a: 'one' } });
    assert.equal(invalid.body.result.isError, true, invalid.text);
    const history = await platform.services.temporal.workflow.getHandle(invalid.body.workflow_id).fetchHistory();
    const started = history.events!.filter((e) => e.activityTaskStartedEventAttributes);
    assert.deepEqual(
      started.map((e) => e.activityTaskStartedEventAttributes!.attempt),
      [1],
    );
  });

  it('keeps a call alive while the server reports progress, and times out one that goes quiet', async () => {
    const progressing = await alice.post(`/artifacts/${stdioId}/invoke`, {
      name: 'trigger-long-running-operation',
      arguments: { duration: 4, steps: 4 },
      timeout_seconds: 2,
    });
    assert.equal(progressing.status, 200, progressing.text);
    assert.equal(progressing.body.result.isError ?? false, false, textOf(progressing.body.result));
    assert.match(textOf(progressing.body.result), /Long running operation completed/);

    const quiet = await alice.post(`/artifacts/${stdioId}/invoke`, {
      name: 'trigger-long-running-operation',
      arguments: { duration: 6, steps: 1 },
      timeout_seconds: 2,
    });
    assert.equal(quiet.status, 200, quiet.text);
    assert.equal(quiet.body.result.isError, true);
    assert.equal(quiet.body.result.structuredContent.error, 'timeout');
  });

  it('answers 202 with the invocation to poll when the call outlasts the wait', async () => {
    const r = await alice.post(`/artifacts/${httpId}/invoke`, {
      name: 'trigger-long-running-operation',
      arguments: { duration: 2, steps: 2 },
      wait_seconds: 0,
    });
    assert.equal(r.status, 202, r.text);
    assert.equal(r.body.status, 'running');
    assert.equal(r.headers.get('location'), `/invocations/${r.body.invocation_id}`);
    const done = await eventually(async () => {
      const p = await alice.get(r.headers.get('location')!);
      return p.body.status === 'completed' && p.body;
    });
    assert.match(textOf(done.result), /completed/);
  });

  it('attaches a retried request with the same Idempotency-Key to the same invocation', async () => {
    const headers = { 'idempotency-key': 'echo-once' };
    const first = await alice.request('POST', `/artifacts/${httpId}/invoke`, {
      body: { name: 'echo', arguments: { message: 'once' } },
      headers,
    });
    const second = await alice.request('POST', `/artifacts/${httpId}/invoke`, {
      body: { name: 'echo', arguments: { message: 'once' } },
      headers,
    });
    assert.equal(first.status, 200, first.text);
    assert.equal(second.body.invocation_id, first.body.invocation_id);
  });

  it('lists live tools, resources and health in the catalog, with icons by §2.12 precedence', async () => {
    const r = await alice.get(`/mcp/workspaces/${ws}/servers`);
    assert.equal(r.status, 200, r.text);
    const http = r.body.servers.find((s: { id: string }) => s.id === httpId);
    assert.equal(http.health.status, 'ok', JSON.stringify(http.health));
    assert.equal(http.transport, 'http');
    assert.ok(http.tools.some((t: { name: string }) => t.name === 'echo'));
    assert.ok(http.resources.length > 0);
    for (const t of http.tools) assert.ok(typeof t.icon === 'string' && t.icon.length > 0);
    const all = await alice.get('/mcp/servers');
    assert.equal(all.body.servers[0].builtin, true, 'the platform toolset comes first');
    assert.ok(all.body.servers.some((s: { id: string }) => s.id === stdioId));
  });

  it('reads a resource and imports it as a workspace draft with provenance', async () => {
    const catalog = (await alice.get(`/mcp/workspaces/${ws}/servers`)).body.servers.find((s: { id: string }) => s.id === httpId);
    const resource = catalog.resources.find((r: { mime_type?: string }) => r.mime_type?.startsWith('text/')) ?? catalog.resources[0];
    const read = await alice.post(`/artifacts/${httpId}/op/resources_read`, { uri: resource.uri });
    assert.equal(read.status, 200, read.text);
    assert.equal(read.body.contents[0].uri, resource.uri);
    const imported = await alice.post(`/artifacts/${httpId}/op/resources_import`, { uri: resource.uri, title: 'imported' });
    assert.equal(imported.status, 201, imported.text);
    assert.equal(imported.body.collection_id, ws);
    assert.equal(imported.body.context.imported_from.server_id, httpId);
    assert.equal(imported.body.context.imported_from.uri, resource.uri);
    assert.equal(imported.body.provenance.source.derived_from, httpId);
    const missing = await alice.post(`/artifacts/${httpId}/op/resources_read`, { uri: 'demo://no/such/resource' });
    assert.equal(missing.status, 502, missing.text);
    assert.equal(missing.body.type, 'urn:platform:problem:mcp-server-error');
  });

  it('refuses to invoke what is not a server, or a server the caller cannot reach', async () => {
    const note = await alice.post('/artifacts', { title: 'n', content_type: 'text/plain', content: 'n', collection_id: ws });
    const notServer = await alice.post(`/artifacts/${note.body.id}/invoke`, { name: 'echo', arguments: {} });
    assert.equal(notServer.status, 409);
    assert.equal(notServer.body.type, 'urn:platform:problem:not-invocable');
    const bob = await platform.newUser();
    const hidden = await bob.post(`/artifacts/${httpId}/invoke`, { name: 'echo', arguments: { message: 'x' } });
    assert.equal(hidden.status, 404);
    await alice.post(`/workspaces/${ws}/shares`, { person_id: bob.userId, flags: 'R' });
    const readOnly = await bob.post(`/artifacts/${httpId}/invoke`, { name: 'echo', arguments: { message: 'x' } });
    assert.equal(readOnly.status, 403, readOnly.text);
    const bad = await alice.post(`/artifacts/${httpId}/invoke`, { name: '', arguments: [] });
    assert.equal(bad.status, 400);
    // A credential allowed to invoke another type only does not reach MCP servers.
    const key = await createApiKey(alice, ['artifact:read', 'tool:application/x-agent:invoke']);
    const narrow = await new Api(platform.url, key.key).post(`/artifacts/${httpId}/invoke`, { name: 'echo', arguments: { message: 'x' } });
    assert.equal(narrow.status, 403, narrow.text);
    assert.equal(narrow.body.type, 'urn:platform:problem:insufficient-scope');
  });

  it("shows an invocation to the person who made it, not to the workspace's other members", async () => {
    const carol = await platform.newUser();
    await alice.post(`/workspaces/${ws}/shares`, { person_id: carol.userId, flags: 'RI' });
    const mine = await alice.post(`/artifacts/${httpId}/invoke`, { name: 'echo', arguments: { message: 'private' } });
    assert.equal((await carol.get(`/invocations/${mine.body.invocation_id}`)).status, 404);
    const theirs = await carol.post(`/artifacts/${httpId}/invoke`, { name: 'echo', arguments: { message: 'carol' } });
    assert.equal(theirs.status, 200, theirs.text);
    assert.equal((await carol.get(`/invocations/${theirs.body.invocation_id}`)).status, 200);
    assert.equal((await alice.get(`/invocations/${theirs.body.invocation_id}`)).status, 200, 'the owner administers the workspace');
  });

  it('imports only into a workspace', async () => {
    const col = (await alice.post('/collections', { name: 'not here' })).body.id;
    const r = await alice.post(`/artifacts/${httpId}/op/resources_import`, {
      uri: 'demo://resource/static/document/architecture.md',
      workspace_id: col,
    });
    assert.equal(r.status, 404, r.text);
  });
});

describe('servers that fail', () => {
  it('turns a 4xx answer into a tool result with the status and a truncated body, not retried', async () => {
    const id = await registered({ transport: { type: 'http', url: everything.url.replace('/mcp', '/nope') } });
    const r = await alice.post(`/artifacts/${id}/invoke`, { name: 'echo', arguments: { message: 'x' } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.result.isError, true);
    assert.equal(r.body.result.structuredContent.status, 404);
    assert.match(r.body.result.structuredContent.body, /Cannot POST \/nope/);
    assert.equal(r.body.result.structuredContent.attempts, 1);
  });

  it('turns a 5xx answer into a tool result with the status and body', async () => {
    const id = await registered({ transport: { type: 'http', url: python.url } });
    const r = await alice.post(`/artifacts/${id}/invoke`, { name: 'echo', arguments: {} });
    assert.equal(r.body.result.isError, true, r.text);
    assert.equal(r.body.result.structuredContent.status, 501);
    assert.match(r.body.result.structuredContent.body, /Unsupported method/);
  });

  it('retries an unreachable server with backoff, then answers with what went wrong', async () => {
    const id = await registered({ transport: { type: 'http', url: `http://127.0.0.1:${await freePort()}/mcp` } });
    const r = await alice.post(`/artifacts/${id}/invoke`, { name: 'echo', arguments: {} });
    assert.equal(r.body.result.isError, true, r.text);
    assert.equal(r.body.result.structuredContent.error, 'unavailable');
    assert.equal(r.body.result.structuredContent.attempts, 4);
    const catalog = await alice.get(`/mcp/workspaces/${ws}/servers`);
    const entry = catalog.body.servers.find((s: { id: string }) => s.id === id);
    assert.equal(entry.health.status, 'error');
  });
});

describe('registration rules', () => {
  async function refused(content: unknown, param: RegExp) {
    const before = (await alice.get(`/artifacts?collection_id=${ws}&limit=100`)).body.items.length;
    const r = await register(alice, ws, content);
    assert.equal(r.status, 400, r.text);
    assert.equal(r.body.type, 'urn:platform:problem:validation-error');
    assert.ok(
      r.body.invalid_params.some((p: { name: string }) => param.test(p.name)),
      JSON.stringify(r.body.invalid_params),
    );
    assert.equal((await alice.get(`/artifacts?collection_id=${ws}&limit=100`)).body.items.length, before, 'nothing stored');
  }

  it('refuses a stdio command outside the allow-list', () =>
    refused({ transport: { type: 'stdio', command: 'bash', args: ['-c', 'id'] } }, /content\.transport\.command/));
  it("refuses every launch that is not a catalog entry: the attack run's argument lists among them", async () => {
    const code = "require('fs').writeFileSync('/tmp/pwned', String(process.getuid()))";
    for (const [command, args] of [
      ['python3', ['-m', 'timeit', '-n1', '-r1', "__import__('os').system('id > /tmp/pwned')"]],
      ['npx', ['node', '-p', code]],
      ['deno', ['run', 'data:text/javascript,Deno.exit(0)']],
      ['node', ['-e', 'process.exit(0)']],
      ['python3', ['-c', 'print(1)']],
      ['node', ['--require=/tmp/x.js', 'examples/agent-server/server.mjs']],
      ['npx', ['-c', 'curl evil']],
      ['node', ['examples/agent-server/server.mjs', '--inspect']],
      ['npx', ['-y', '@modelcontextprotocol/server-everything', '--', 'x']],
    ] as const) {
      await refused({ transport: { type: 'stdio', command, args } }, /content\.transport\.command/);
    }
  });
  it('refuses env a catalog entry does not declare, and raw env values', async () => {
    const secret = (await alice.post('/secrets', { name: 'x', value: 'x' })).body.id;
    for (const name of ['OPENSSL_CONF', 'GCONV_PATH', 'NODE_OPTIONS', 'LD_PRELOAD', 'PATH']) {
      await refused(
        { transport: { ...stdioEverything.transport, env: { [name]: { secret_id: secret } } } },
        new RegExp(`content\\.transport\\.env\\.${name}`),
      );
      await refused(
        { transport: { ...stdioEverything.transport, env: { [name]: '/tmp/evil.cnf' } } },
        new RegExp(`content\\.transport\\.env\\.${name}`),
      );
    }
  });
  it("takes a catalog entry's parameters only when they match its pattern, never as options", async () => {
    const time = (params: Record<string, string>) => ({ transport: { type: 'stdio', catalog_entry: 'mcp-server-time', params } });
    await refused(time({ local_timezone: '--help' }), /content\.transport\.params\.local_timezone/);
    await refused(time({ local_timezone: 'Europe/Paris; id' }), /content\.transport\.params\.local_timezone/);
    await refused(time({ other: 'x' }), /content\.transport\.params\.other/);
    await refused({ transport: { type: 'stdio', catalog_entry: 'no-such-entry' } }, /content\.transport\.catalog_entry/);
    const stored = await alice.post('/artifacts', {
      title: 'paris',
      content_type: mcpServerType,
      content: JSON.stringify(time({ local_timezone: 'Europe/Paris' })),
      collection_id: ws,
    });
    assert.equal(stored.status, 201, stored.text);
    assert.deepEqual(JSON.parse(stored.body.content).transport.args, [
      '--offline',
      'mcp-server-time==2026.10.19',
      '--local-timezone=Europe/Paris',
    ]);
  });
  it('refuses private, link-local and metadata addresses when registering', async () => {
    await refused({ transport: { type: 'http', url: 'http://169.254.169.254/latest/meta-data' } }, /content\.transport\.url/);
    await refused({ transport: { type: 'http', well_known: 'http://10.1.2.3/.well-known/mcp.json' } }, /content\.transport\.well_known/);
  });

  it('refuses a discovery document that redirects into a private address, at call time', async () => {
    const redirector: Server = createServer((_req, res) =>
      res.writeHead(302, { location: 'http://169.254.169.254/.well-known/mcp.json' }).end(),
    );
    const port = await freePort();
    await new Promise<void>((r) => redirector.listen(port, '127.0.0.1', r));
    try {
      const id = await registered({ transport: { type: 'http', well_known: `http://127.0.0.1:${port}/.well-known/mcp.json` } });
      const r = await alice.post(`/artifacts/${id}/invoke`, { name: 'echo', arguments: {} });
      assert.equal(r.body.result.isError, true, r.text);
      assert.equal(r.body.result.structuredContent.error, 'refused');
      assert.match(textOf(r.body.result), /169\.254\.169\.254/);
    } finally {
      redirector.close();
    }
  });

  it('refuses loopback on a deployment that does not allow it', async () => {
    const strict = await startPlatform({ ALLOW_STDIO_MCP_SERVERS: 'false' }, { worker: false });
    try {
      const carol = await strict.newUser();
      const home = (await carol.post('/workspaces', { name: 'h' })).body.id;
      const r = await register(carol, home, { transport: { type: 'http', url: everything.url } });
      assert.equal(r.status, 400, r.text);
      assert.match(r.body.detail, /loopback/);
      const stdio = await register(carol, home, stdioEverything);
      assert.equal(stdio.status, 400);
    } finally {
      await strict.close();
    }
  });
});

describe('credentials', () => {
  it('resolves a secret into env only inside the activity: never in history, logs or the result', async () => {
    const value = `sk-live-${Math.random().toString(36).slice(2)}-do-not-leak`;
    const secret = await alice.post('/secrets', { name: 'everything token', value });
    assert.equal(secret.status, 201, secret.text);
    const id = await registered(
      { transport: { type: 'stdio', catalog_entry: 'everything-with-secrets', env: { EVERYTHING_TOKEN: { secret_id: secret.body.id } } } },
      'with secret',
    );
    const r = await alice.post(`/artifacts/${id}/invoke`, { name: 'get-env', arguments: {} });
    assert.equal(r.status, 200, r.text);
    const text = textOf(r.body.result);
    // The server did get it: its own printout of the environment names the variable, with the value scrubbed.
    assert.match(text, /EVERYTHING_TOKEN/);
    assert.match(text, /\[redacted\]/);
    assert.ok(!r.text.includes(value), 'not in the API response');
    const history = await openedHistoryText(platform, r.body.workflow_id);
    assert.match(history, /EVERYTHING_TOKEN/, 'the history, the tool result included, was read');
    assert.ok(!history.includes(value), 'not in Temporal history');
    assert.ok(!history.includes(Buffer.from(value).toString('base64')), 'not in Temporal history, encoded');
    assert.ok(!platform.logs.join('').includes(value), 'not in the logs');
  });

  it('sends an api_key secret as the header the server sees', async () => {
    // The platform's own /mcp is a real Streamable HTTP server that demands a bearer token: without the
    // header it answers 401, which becomes the tool result.
    const token = alice.token!;
    const own = await alice.post('/secrets', { name: 'own token', value: `Bearer ${token}` });
    const bare = await registered(
      { transport: { type: 'http', well_known: `${platform.url}/.well-known/mcp.json` } },
      'platform without auth',
    );
    const noAuth = await alice.post(`/artifacts/${bare}/invoke`, { name: 'browse_workspaces', arguments: {} });
    assert.equal(noAuth.body.result.structuredContent.status, 401, noAuth.text);
    const authed = await registered(
      {
        transport: { type: 'http', well_known: `${platform.url}/.well-known/mcp.json` },
        auth: { type: 'api_key', secret_id: own.body.id, header: 'Authorization' },
      },
      'platform with auth',
    );
    const r = await alice.post(`/artifacts/${authed}/invoke`, { name: 'browse_workspaces', arguments: {} });
    assert.equal(r.body.result.isError ?? false, false, r.text);
    assert.ok(r.body.result.structuredContent.items.some((w: { id: string }) => w.id === ws));
    assert.ok(!(await openedHistoryText(platform, r.body.workflow_id)).includes(token), 'the token is not in history');
  });
});
