// The gateway test matrix (issue #35): the platform, as an MCP client (SDK 2), negotiates the current
// protocol revision (2026-07-28) with servers that offer it and falls back to a 2025 revision with those
// that do not, over stdio and Streamable HTTP (and the older HTTP+SSE). Every server is a real one:
// - 2026-07-28: mcp-server-time from PyPI through uvx (Python SDK 2.3, stdio only), and the platform's
//   own /mcp (TypeScript SDK server 2.4) over Streamable HTTP — no MCP server published on npm or PyPI
//   serves 2026-07-28 over HTTP yet (server-everything 2026.8.31 is on SDK 1.32: 2025-11-25);
// - 2025-11-25: @modelcontextprotocol/server-everything 2026.8.31 (SDK 1.32), stdio and HTTP;
// - 2025-06-18: server-everything 2025.7.1 (SDK 1.13.3, installed under .dev by
//   temporal-dev/install-mcp-servers.sh), over Streamable HTTP and HTTP+SSE (not over stdio: a stdio
//   server runs sandboxed, and the sandbox hides .dev).
// Each is called through REST (POST /artifacts/{id}/invoke) and through the platform's own
// call_server_tool MCP tool, and the revision each session negotiated is read from the worker's
// "MCP session opened" log line.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { eventually, type Api } from '../helpers/http.js';
import { createApiKey } from '../helpers/credentials.js';
import { invokeTool } from '../helpers/invoke.js';
import { everything2025Http, everythingHttp, registerServer, type Started } from '../helpers/mcp-servers.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

let platform: TestPlatform;
let alice: Api & { userId: string };
let ws: string;
let mcp: Client;
const started: Started[] = [];

before(async () => {
  platform = await startPlatform(
    {
      ALLOW_STDIO_MCP_SERVERS: 'true',
      MCP_OUTBOUND_ALLOW: '127.0.0.0/8,::1/128',
      // Sessions close after two idle seconds, so that a later call opens a new one (the cached-verdict case).
      MCP_CONNECTION_IDLE_SECONDS: '2',
    },
    { worker: true },
  );
  alice = await platform.newUser();
  ws = (await alice.post('/workspaces', { name: 'gateway' })).body.id;
  const key = await createApiKey(alice, ['artifact:read', 'artifact:invoke']);
  mcp = new Client({ name: 'gateway-matrix', version: '1' }, { versionNegotiation: { mode: 'auto' } });
  await mcp.connect(
    new StreamableHTTPClientTransport(new URL(`${platform.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key.key}` } } }),
  );
});
after(async () => {
  await mcp?.close().catch(() => {});
  await platform?.close();
  await Promise.all(started.map((s) => s.close()));
});

async function start(server: Promise<Started>): Promise<Started> {
  const s = await server;
  started.push(s);
  return s;
}

interface SessionLog {
  protocol_version: string;
  transport: string;
  negotiation: 'probed' | 'cached';
}

/** The revision and transport of the sessions the worker opened with a server, from its log. */
function sessionsOf(serverId: string): SessionLog[] {
  return platform.logs.flatMap((line) => {
    try {
      const entry = JSON.parse(line) as Record<string, string>;
      return entry.msg === 'MCP session opened' && entry.server_id === serverId ? [entry as unknown as SessionLog] : [];
    } catch {
      return [];
    }
  });
}

/** call_server_tool through the platform's own MCP endpoint: the invocation's result. */
async function callOverMcp(serverId: string, name: string, args: Record<string, unknown>) {
  const called = await mcp.callTool(
    { name: 'call_server_tool', arguments: { server_id: serverId, name, arguments: args, wait_seconds: 60 } },
    { timeout: 120_000 },
  );
  assert.equal(called.isError ?? false, false, JSON.stringify(called));
  const invocation = called.structuredContent as { status: string; result: { isError?: boolean; content: { text?: string }[] } };
  assert.equal(invocation.status, 'completed', JSON.stringify(invocation));
  return invocation.result;
}

const textOf = (result: Record<string, any>) => (result.content as { text?: string }[]).map((c) => c.text ?? '').join('');

interface Row {
  name: string;
  revision: string;
  transport: 'stdio' | 'streamable_http' | 'sse';
  register: () => Promise<string>;
  tool: string;
  args: Record<string, unknown>;
  expect: RegExp;
}

const rows: Row[] = [
  {
    name: 'mcp-server-time (Python SDK 2.3, uvx)',
    revision: '2026-07-28',
    transport: 'stdio',
    register: () => registerServer(alice, ws, { transport: { type: 'stdio', catalog_entry: 'mcp-server-time' } }, 'time'),
    tool: 'get_current_time',
    args: { timezone: 'Europe/Paris' },
    expect: /Europe\/Paris/,
  },
  {
    name: "the platform's own /mcp (TypeScript SDK server 2.4)",
    revision: '2026-07-28',
    transport: 'streamable_http',
    register: async () => {
      const key = await createApiKey(alice, ['artifact:read']);
      const secret = await alice.post('/secrets', { name: 'own key', value: `Bearer ${key.key}` });
      assert.equal(secret.status, 201, secret.text);
      return registerServer(
        alice,
        ws,
        {
          transport: { type: 'http', url: `${platform.url}/mcp` },
          auth: { type: 'api_key', secret_id: secret.body.id, header: 'Authorization' },
        },
        'platform',
      );
    },
    tool: 'browse_workspaces',
    args: {},
    expect: /gateway/,
  },
  {
    name: 'server-everything 2026.8.31 (SDK 1.32, npx)',
    revision: '2025-11-25',
    transport: 'stdio',
    register: () =>
      registerServer(
        alice,
        ws,
        { transport: { type: 'stdio', command: 'npx', args: ['--no-install', '@modelcontextprotocol/server-everything', 'stdio'] } },
        'everything stdio',
      ),
    tool: 'echo',
    args: { message: 'matrix' },
    expect: /Echo: matrix/,
  },
  {
    name: 'server-everything 2026.8.31 (SDK 1.32)',
    revision: '2025-11-25',
    transport: 'streamable_http',
    register: async () =>
      registerServer(alice, ws, { transport: { type: 'http', url: (await start(everythingHttp())).url } }, 'everything http'),
    tool: 'echo',
    args: { message: 'matrix' },
    expect: /Echo: matrix/,
  },
  {
    name: 'server-everything 2025.7.1 (SDK 1.13.3)',
    revision: '2025-06-18',
    transport: 'streamable_http',
    register: async () =>
      registerServer(alice, ws, { transport: { type: 'http', url: (await start(everything2025Http())).url } }, 'everything 2025 http'),
    tool: 'echo',
    args: { message: 'matrix' },
    expect: /Echo: matrix/,
  },
  {
    name: 'server-everything 2025.7.1 (SDK 1.13.3)',
    revision: '2025-06-18',
    transport: 'sse',
    register: async () =>
      registerServer(alice, ws, { transport: { type: 'http', url: (await start(everything2025Http('sse'))).url } }, 'everything 2025 sse'),
    tool: 'echo',
    args: { message: 'matrix' },
    expect: /Echo: matrix/,
  },
];

const registered = new Map<Row, string>();

type Listed = { id: string; health: { status: string; protocol_version?: string }; tools: { name: string }[] };

describe('the gateway speaks each server its own protocol revision', () => {
  for (const row of rows) {
    it(`${row.revision} over ${row.transport}: ${row.name}, through REST and call_server_tool`, async () => {
      const id = await row.register();
      registered.set(row, id);
      const viaRest = await invokeTool(alice, id, row.tool, row.args);
      assert.equal(viaRest.isError ?? false, false, JSON.stringify(viaRest));
      assert.match(textOf(viaRest), row.expect);
      const viaMcp = await callOverMcp(id, row.tool, row.args);
      assert.equal(viaMcp.isError ?? false, false, JSON.stringify(viaMcp));
      assert.match(textOf(viaMcp), row.expect);
      const sessions = await eventually(async () => (sessionsOf(id).length > 0 ? sessionsOf(id) : undefined));
      for (const session of sessions)
        assert.deepEqual([session.protocol_version, session.transport], [row.revision, row.transport], JSON.stringify(sessions));
      assert.equal(sessions[0]!.negotiation, 'probed', 'the first session asks the server');
      // The catalog was listed too (on a session of its own, at the same revision): the server's tools are there.
      const entry = await eventually(async () => {
        const r = await alice.get(`/mcp/workspaces/${ws}/servers`);
        assert.equal(r.status, 200, r.text);
        const listed = (r.body.servers as Listed[]).find((s) => s.id === id);
        return listed?.health.status === 'ok' ? listed : undefined;
      });
      assert.ok(
        entry.tools.some((t) => t.name === row.tool),
        JSON.stringify(entry),
      );
      // The listing shows the revision its session negotiated, in both catalog views.
      assert.equal(entry.health.protocol_version, row.revision, JSON.stringify(entry.health));
      const everywhere = await alice.get('/mcp/servers');
      assert.equal(everywhere.status, 200, everywhere.text);
      const same = (everywhere.body.servers as Listed[]).find((s) => s.id === id);
      assert.equal(same?.health.protocol_version, row.revision, JSON.stringify(same));
    });
  }
});

describe('a stdio server is probed once per worker and hour', () => {
  // Probing a stdio server starts it a second time (the SDK's sibling probe); a later session takes the
  // verdict this worker kept, and still speaks the same revision.
  for (const row of rows.filter((r) => r.transport === 'stdio')) {
    it(`opens a later session with ${row.name} from its kept verdict, at ${row.revision}`, async () => {
      const id = registered.get(row);
      assert.ok(id, 'registered by the matrix above');
      const cached = await eventually(async () => {
        const result = await invokeTool(alice, id, row.tool, row.args);
        assert.match(textOf(result), row.expect);
        const later = sessionsOf(id).filter((s) => s.negotiation === 'cached');
        if (later.length === 0) await new Promise((r) => setTimeout(r, 2_500)); // until the idle session is closed
        return later.length > 0 ? later : undefined;
      }, 60_000);
      for (const session of cached) assert.equal(session.protocol_version, row.revision);
    });
  }
});
