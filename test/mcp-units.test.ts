// The MCP client's rules without engines: stdio argument refusals, type definitions, redaction,
// result bounds, failure classification and the connection pool.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { mcpServerContent, refusedArgument } from '../src/content-types/mcp-server.js';
import { typeDefinition } from '../src/content-types/type-definition.js';
import { createLogger } from '../src/logging/logger.js';
import type { Connection } from '../src/mcp/client/connection.js';
import { ConnectionPool } from '../src/mcp/client/pool.js';
import { boundResult, classify, redact } from '../src/mcp/client/results.js';

describe('stdio registrations', () => {
  it('refuses options that evaluate code, also grouped or with the value attached', () => {
    for (const [command, arg] of [['node', '-e'], ['node', '-pe'], ['node', '--eval=1'], ['node', '--require=x'], ['node', '--import'], ['node', '-'], ['python3', '-c'], ['python3', '-Bc'], ['python3', '-cprint(1)'], ['python', '-i'], ['deno', 'eval'], ['npx', '-c'], ['npx', '--node-options=--require=x'], ['uvx', '--env-file-if-exists=.env']] as const) {
      assert.ok(refusedArgument(command, arg), `${command} ${arg}`);
    }
  });
  it('accepts the ordinary ways of starting a server', () => {
    for (const [command, arg] of [['npx', '-y'], ['npx', '-p'], ['npx', '@modelcontextprotocol/server-everything'], ['python3', '-m'], ['python3', '-mmcp_server_time'], ['python3', '-u'], ['uvx', '--offline'], ['uvx', '--from'], ['node', 'server.mjs'], ['deno', 'run']] as const) {
      assert.equal(refusedArgument(command, arg), null, `${command} ${arg}`);
    }
  });
  it('refuses env that steers the runner, in any case', () => {
    for (const name of ['NODE_OPTIONS', 'node_options', 'LD_PRELOAD', 'DYLD_INSERT_LIBRARIES', 'PYTHONSTARTUP', 'npm_config_script_shell', 'UV_INDEX_URL', 'PATH', 'HOME']) {
      const parsed = mcpServerContent.safeParse({ transport: { type: 'stdio', command: 'node', args: ['s.js'], env: { [name]: 'x' } } });
      assert.equal(parsed.success, false, name);
    }
    assert.ok(mcpServerContent.safeParse({ transport: { type: 'stdio', command: 'node', args: ['s.js'], env: { API_TOKEN: 'x', TZ: 'UTC' } } }).success);
  });
  it('takes exactly one of well_known and url for http', () => {
    assert.equal(mcpServerContent.safeParse({ transport: { type: 'http' } }).success, false);
    assert.equal(mcpServerContent.safeParse({ transport: { type: 'http', url: 'https://a.example/mcp', well_known: 'https://a.example/.well-known/mcp.json' } }).success, false);
    assert.ok(mcpServerContent.safeParse({ transport: { type: 'http', url: 'https://a.example/mcp' } }).success);
  });
});

describe('type definitions', () => {
  const def = (mime: string) => typeDefinition.safeParse({ mime, version: 1 });
  it('registers vendor types only, never a platform or a common one', () => {
    assert.ok(def('application/vnd.example.note+json').success);
    assert.ok(def('application/x-notes').success);
    assert.equal(def('text/markdown').success, false);
    assert.equal(def('application/json').success, false);
    assert.equal(def('application/vnd.platform.mcp-server+json').success, false);
  });
});

describe('results', () => {
  it('redacts secrets inside strings only, leaving keys and numbers whole', () => {
    const value = { content: [{ type: 'text', text: 'token=s3cr3t-value and 1234' }], structuredContent: { count: 1234, 's3cr3t-value': true } };
    const out = redact(value, ['s3cr3t-value', '1234']);
    assert.equal(out.content[0]!.text, 'token=[redacted] and [redacted]');
    assert.equal(out.structuredContent.count, 1234);
    assert.ok('s3cr3t-value' in out.structuredContent);
  });
  it('cuts a result larger than the bound and says so', () => {
    const big: CallToolResult = { content: [{ type: 'text', text: 'a'.repeat(10_000) }, { type: 'text', text: 'b'.repeat(10_000) }], structuredContent: { x: 'c'.repeat(10_000) } };
    const out = boundResult(big, 8_000);
    assert.ok(Buffer.byteLength(JSON.stringify(out)) <= 8_000);
    assert.equal(out._meta?.['platform/truncated'], true);
    assert.match((out.content.at(-1) as { text: string }).text, /larger than 8000 bytes/);
    assert.equal(boundResult({ content: [{ type: 'text', text: 'small' }] }, 8_000).content.length, 1);
  });
  it('retries what may pass and returns the rest as it is', () => {
    assert.equal(classify(new StreamableHTTPError(503, 'Error POSTing to endpoint: busy')).retryable, true);
    assert.equal(classify(new StreamableHTTPError(429, 'slow down')).retryable, true);
    const notFound = classify(new StreamableHTTPError(404, 'Error POSTing to endpoint: Cannot POST /x'));
    assert.deepEqual([notFound.retryable, notFound.status, notFound.body], [false, 404, 'Cannot POST /x']);
    assert.equal(classify(new StreamableHTTPError(501, 'no')).retryable, false);
    assert.equal(classify(new McpError(ErrorCode.RequestTimeout, 'timed out')).kind, 'timeout');
    assert.equal(classify(new McpError(ErrorCode.RequestTimeout, 'timed out')).retryable, false);
    assert.equal(classify(new McpError(ErrorCode.ConnectionClosed, 'Connection closed')).retryable, true);
    assert.equal(classify(Object.assign(new Error('refused'), { code: 'outbound_refused' })).kind, 'refused');
    assert.equal(classify(new TypeError('fetch failed: ECONNREFUSED')).retryable, true);
  });
});

describe('connection pool', () => {
  const fake = (): Connection & { closed: boolean } => {
    const c = { closed: false, client: {} as Connection['client'], stderrTail: () => '', close: async () => void (c.closed = true) };
    return c;
  };
  it('reuses a connection, and a failed call drops only the connection it used', async () => {
    const pool = new ConnectionPool(60_000, createLogger('silent'));
    const first = fake();
    const second = fake();
    let opened = 0;
    const open = async () => [first, second][opened++]!;
    let dropFirst: () => Promise<void> = async () => {};
    await pool.use('k', open, async (c, reused, drop) => {
      assert.equal(c, first);
      assert.equal(reused, false);
      dropFirst = drop;
    });
    await pool.use('k', open, async (c, reused) => assert.deepEqual([c, reused], [first, true]));
    await dropFirst();
    assert.equal(first.closed, true);
    await pool.use('k', open, async (c) => assert.equal(c, second));
    await dropFirst(); // a late failure of a call on the first connection
    assert.equal(second.closed, false, 'the newer connection stays');
    await pool.close();
    assert.equal(second.closed, true);
  });
  it('closes connections left idle', async () => {
    const pool = new ConnectionPool(50, createLogger('silent'));
    const c = fake();
    await pool.use('k', async () => c, async () => undefined);
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(c.closed, true);
    assert.equal(pool.size, 0);
    await pool.close();
  });
});

describe('icons', () => {
  it('takes the item icon, then the server icon, then the generic one, showing only safe ones', async () => {
    const { iconOf } = await import('../src/mcp/client/icons.js');
    assert.equal(iconOf({ _meta: { icon: '🗒️' } }, 'platform'), '🗒️');
    assert.equal(iconOf({ icons: [{ src: 'https://cdn.example/i.png' }] }, 'platform'), 'https://cdn.example/i.png');
    assert.equal(iconOf({ _meta: { icon: 'javascript:alert(1)' } }, 'platform'), 'platform');
    assert.equal(iconOf({}, 'platform'), 'platform');
    assert.equal(iconOf(undefined), 'mcp');
  });
});
