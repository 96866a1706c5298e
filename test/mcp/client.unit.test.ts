// The MCP client's rules without engines: the stdio catalog, type definitions, redaction,
// result bounds, failure classification and the connection pool.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ProtocolError, ProtocolErrorCode, SdkError, SdkErrorCode, SdkHttpError, UnauthorizedError } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { mcpServerContent } from '../../src/artifacts/content-types/mcp-server.js';
import { catalogEntry, CatalogMismatch, StdioCatalog } from '../../src/stdio-servers/catalog.js';
import { typeDefinition } from '../../src/artifacts/content-types/type-definition.js';
import { createLogger } from '../../src/kernel/logging/logger.js';
import type { McpSession } from '../../src/mcp-client/session.js';
import { SessionPool } from '../../src/mcp-client/session-pool.js';
import { boundResult, classify, redact } from '../../src/mcp-client/results.js';

describe('the stdio catalog', () => {
  const catalog = StdioCatalog.load(['config/stdio-catalog.json', 'test/fixtures/stdio-catalog.json']);
  const mismatch = (reg: Parameters<StdioCatalog['match']>[0]) => {
    try {
      catalog.match(reg);
    } catch (err) {
      if (err instanceof CatalogMismatch) return err.field;
      throw err;
    }
    return null;
  };
  it("matches a registration that spells out an entry, its own arguments or an alias, to the entry's pinned launch", () => {
    for (const args of [
      ['-y', '@modelcontextprotocol/server-everything'],
      ['--no-install', '@modelcontextprotocol/server-everything@2026.8.31', 'stdio'],
    ]) {
      const { entry, args: launched } = catalog.match({ command: 'npx', args });
      assert.equal(entry.id, 'server-everything');
      assert.deepEqual(launched, ['--no-install', '@modelcontextprotocol/server-everything@2026.8.31', 'stdio']);
    }
    assert.deepEqual(
      { ...catalog.match({ command: 'uvx', args: ['--offline', 'mcp-server-time==2026.10.19', '--local-timezone=Asia/Tokyo'] }).params },
      { local_timezone: 'Asia/Tokyo' },
    );
    assert.deepEqual(catalog.match({ catalog_entry: 'mcp-server-time' }).args, ['--offline', 'mcp-server-time==2026.10.19']);
  });
  it("refuses every other argument list, the attack run's among them", () => {
    for (const [command, args] of [
      ['python3', ['-m', 'timeit', '-n1', '-r1', 'import os']],
      ['npx', ['node', '-p', 'process.env']],
      ['deno', ['run', 'data:text/javascript,1']],
      ['node', ['examples/note-type-server/server.mjs', '--inspect']],
      ['node', ['-e', '1', 'examples/note-type-server/server.mjs']],
      ['npx', ['-y', '@modelcontextprotocol/server-everything@latest']],
    ] as const) {
      assert.equal(mismatch({ command, args: [...args] }), 'command', `${command} ${args.join(' ')}`);
    }
    assert.equal(
      mismatch({ command: 'uvx', args: ['--offline', 'mcp-server-time==2026.10.19', '--local-timezone=-x'] }),
      'params.local_timezone',
    );
  });
  it('takes only declared parameters, matching their pattern, never starting with "-"', () => {
    assert.equal(mismatch({ catalog_entry: 'mcp-server-time', params: { local_timezone: '-h' } }), 'params.local_timezone');
    assert.equal(mismatch({ catalog_entry: 'mcp-server-time', params: { local_timezone: 'UTC\n--x' } }), 'params.local_timezone');
    assert.equal(mismatch({ catalog_entry: 'mcp-server-time', params: { tz: 'UTC' } }), 'params.tz');
    assert.equal(mismatch({ catalog_entry: 'server-everything', args: ['stdio'] }), 'args');
    assert.equal(mismatch({ command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'], params: { a: 'b' } }), 'params');
  });
  it('takes only the env secrets an entry declares', () => {
    const ref = { secret_id: '0190b5a0-0000-7000-8000-000000000000' };
    for (const name of ['OPENSSL_CONF', 'GCONV_PATH', 'NODE_OPTIONS', 'LD_PRELOAD', 'PATH', 'HOME']) {
      assert.equal(mismatch({ catalog_entry: 'everything-with-secrets', env: { [name]: ref } }), `env.${name}`, name);
    }
    assert.equal(mismatch({ catalog_entry: 'everything-with-secrets', env: { API_KEY: ref } }), null);
    assert.equal(mismatch({ catalog_entry: 'server-everything', env: { API_KEY: ref } }), 'env.API_KEY');
    for (const name of ['constructor', 'toString', 'hasOwnProperty']) {
      assert.equal(
        mismatch({ catalog_entry: 'hostile', env: { [name]: ref } }),
        `env.${name}`,
        `${name}: inherited names are not declared secrets`,
      );
      assert.equal(mismatch({ catalog_entry: 'mcp-server-time', params: { [name]: 'x' } }), `params.${name}`);
    }
    assert.equal(
      mcpServerContent.safeParse({ transport: { type: 'stdio', catalog_entry: 'x', env: { API_KEY: 'raw' } } }).success,
      false,
      'a raw env value',
    );
  });
  it('refuses a catalog file whose entries are not pinned or not consistent', () => {
    const bad = (entry: Record<string, unknown>) =>
      catalogEntry.safeParse({ id: 'x', title: 'x', command: 'npx', args: ['--no-install', 'pkg@1.0.0'], ...entry }).success;
    assert.ok(bad({}));
    assert.equal(bad({ package: { name: 'pkg', version: '2.0.0' } }), false, 'args must name the pinned version');
    assert.equal(bad({ args: ['{root}'] }), false, 'an undeclared parameter');
    assert.equal(bad({ params: { root: { pattern: '[a-z]+' } } }), false, 'a parameter the args do not use');
    assert.equal(bad({ args: ['{root}'], params: { root: { pattern: '[' } } }), false, 'a pattern that does not compile');
    assert.equal(bad({ command: 'bash' }), false);
    assert.equal(
      bad({ args: ['{a},{b}'], params: { a: { pattern: '.+' }, b: { pattern: '.+' } } }),
      false,
      'two parameters in one argument',
    );
    assert.throws(() => new StdioCatalog([catalog.get('hostile')!, catalog.get('hostile')!]), /twice/);
  });
  it('takes exactly one of well_known and url for http', () => {
    assert.equal(mcpServerContent.safeParse({ transport: { type: 'http' } }).success, false);
    assert.equal(
      mcpServerContent.safeParse({
        transport: { type: 'http', url: 'https://a.example/mcp', well_known: 'https://a.example/.well-known/mcp.json' },
      }).success,
      false,
    );
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
    const value = {
      content: [{ type: 'text', text: 'token=s3cr3t-value and 1234' }],
      structuredContent: { count: 1234, 's3cr3t-value': true },
    };
    const out = redact(value, ['s3cr3t-value', '1234']);
    assert.equal(out.content[0]!.text, 'token=[redacted] and [redacted]');
    assert.equal(out.structuredContent.count, 1234);
    assert.ok('s3cr3t-value' in out.structuredContent);
  });
  it('cuts a result larger than the bound and says so', () => {
    const big: CallToolResult = {
      content: [
        { type: 'text', text: 'a'.repeat(10_000) },
        { type: 'text', text: 'b'.repeat(10_000) },
      ],
      structuredContent: { x: 'c'.repeat(10_000) },
    };
    const out = boundResult(big, 8_000);
    assert.ok(Buffer.byteLength(JSON.stringify(out)) <= 8_000);
    assert.equal(out._meta?.['platform/truncated'], true);
    assert.match((out.content.at(-1) as { text: string }).text, /larger than 8000 bytes/);
    assert.equal(boundResult({ content: [{ type: 'text', text: 'small' }] }, 8_000).content.length, 1);
  });
  it('retries what may pass and returns the rest as it is', () => {
    const posted = (status: number, text: string) =>
      new SdkHttpError(SdkErrorCode.ClientHttpNotImplemented, `Error POSTing to endpoint: ${text}`, { status, text });
    assert.equal(classify(posted(503, 'busy')).retryable, true);
    assert.equal(classify(posted(429, 'slow down')).retryable, true);
    const notFound = classify(posted(404, 'Cannot POST /x'));
    assert.deepEqual([notFound.retryable, notFound.status, notFound.body], [false, 404, 'Cannot POST /x']);
    assert.equal(classify(posted(501, 'no')).retryable, false);
    // The version probe's own answer: a 5xx is the server's, with its body.
    const probed = classify(
      new SdkHttpError(SdkErrorCode.EraNegotiationFailed, 'Version negotiation failed: the server answered the probe with HTTP 502', {
        status: 502,
        text: 'bad gateway',
      }),
    );
    assert.deepEqual([probed.kind, probed.retryable, probed.status, probed.body], ['http_status', true, 502, 'bad gateway']);
    assert.equal(classify(new UnauthorizedError()).status, 401);
    assert.equal(classify(new SdkError(SdkErrorCode.RequestTimeout, 'timed out')).kind, 'timeout');
    assert.equal(classify(new SdkError(SdkErrorCode.RequestTimeout, 'timed out')).retryable, false);
    assert.equal(classify(new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed')).retryable, true);
    assert.equal(classify(new ProtocolError(ProtocolErrorCode.InvalidParams, 'no such tool')).kind, 'protocol');
    // The guard's refusal, met by the version probe, is still a refusal.
    const refusedProbe = new SdkError(SdkErrorCode.EraNegotiationFailed, 'Version negotiation probe failed: refused', undefined, {
      cause: Object.assign(new Error('refused'), { code: 'outbound_refused' }),
    });
    assert.equal(classify(refusedProbe).kind, 'refused');
    assert.equal(classify(Object.assign(new Error('refused'), { code: 'outbound_refused' })).kind, 'refused');
    assert.equal(classify(new TypeError('fetch failed: ECONNREFUSED')).retryable, true);
  });
});

describe('connection pool', () => {
  const fake = (): McpSession & { closed: boolean } => {
    const c = {
      closed: false,
      client: {} as McpSession['client'],
      protocolVersion: '2026-07-28',
      transport: 'stdio' as const,
      negotiation: 'probed' as const,
      stderrTail: () => '',
      close: async () => void (c.closed = true),
    };
    return c;
  };
  it('reuses a connection, and a failed call drops only the connection it used', async () => {
    const pool = new SessionPool(60_000, createLogger('silent'));
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
    const pool = new SessionPool(50, createLogger('silent'));
    const c = fake();
    await pool.use(
      'k',
      async () => c,
      async () => undefined,
    );
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(c.closed, true);
    assert.equal(pool.size, 0);
    await pool.close();
  });
});

describe('icons', () => {
  it('takes the item icon, then the server icon, then the generic one, showing only safe ones', async () => {
    const { iconOf } = await import('../../src/mcp-client/icons.js');
    assert.equal(iconOf({ _meta: { icon: '🗒️' } }, 'platform'), '🗒️');
    assert.equal(iconOf({ icons: [{ src: 'https://cdn.example/i.png' }] }, 'platform'), 'https://cdn.example/i.png');
    assert.equal(iconOf({ _meta: { icon: 'javascript:alert(1)' } }, 'platform'), 'platform');
    assert.equal(iconOf({}, 'platform'), 'platform');
    assert.equal(iconOf(undefined), 'mcp');
  });
});
