// The direct tools/call path (src/mcp-server/direct-call.ts) without engines: which requests it takes
// (only those the SDK would serve with one JSON answer, everything else is the SDK's), and that what
// it answers is what the SDK's own server answers for the same tool result, in both protocol eras,
// including the SDK's output-schema check and its wire codecs' edge cases.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createMcpHandler, McpServer, WebStandardStreamableHTTPServerTransport, type CallToolResult } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { published } from '../../src/mcp-server/schemas.js';
import { answerDirect, directToolCall, type DirectToolCall } from '../../src/mcp-server/direct-call.js';
import { serverInfo, toolTable, type PublishedTool } from '../../src/mcp-server/tool-table.js';
import type { ToolDef } from '../../src/mcp-server/tools.js';

const envelope = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'unit', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const legacyHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const modernHeaders = (name: string) => ({
  ...legacyHeaders,
  'mcp-protocol-version': '2026-07-28',
  'mcp-method': 'tools/call',
  'mcp-name': name,
});
const call = (name: string, args: unknown, extra: Record<string, unknown> = {}, id: unknown = 1) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args, ...extra },
});
const modernCall = (name: string, args: unknown, id: unknown = 1) => call(name, args, { _meta: envelope }, id);

describe('which tools/call requests the direct path takes', () => {
  it('takes a 2025-era and a 2026-07-28 call of a known tool whose arguments validate, with the parsed arguments', () => {
    const legacy = directToolCall(legacyHeaders, call('search', { query: 'wing' }, {}, 'a-string-id'));
    assert.equal(legacy?.era, 'legacy');
    assert.equal(legacy?.id, 'a-string-id');
    assert.equal(legacy?.tool.def.name, 'search');
    assert.equal((legacy?.input as { limit: number }).limit, 10, 'defaults applied, as the SDK hands them to the tool');
    const modern = directToolCall(modernHeaders('search'), modernCall('search', { query: 'wing' }, 7));
    assert.equal(modern?.era, 'modern');
    assert.equal(modern?.id, 7);
    assert.equal(directToolCall({ ...legacyHeaders, 'mcp-protocol-version': '2025-06-18' }, call('relay_status', {}))?.era, 'legacy');
    assert.equal(directToolCall(legacyHeaders, call('relay_status', undefined))?.era, 'legacy', 'no arguments is an empty object');
  });

  it('leaves everything else to the SDK: other methods, batches, notifications, bad arguments, unknown tools, headers it would refuse', () => {
    const declined: [string, Record<string, string>, unknown][] = [
      ['tools/list', legacyHeaders, { jsonrpc: '2.0', id: 1, method: 'tools/list' }],
      ['initialize', legacyHeaders, { jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }],
      ['a batch', legacyHeaders, [call('search', { query: 'x' })]],
      ['a notification', legacyHeaders, { jsonrpc: '2.0', method: 'tools/call', params: { name: 'search' } }],
      ['an unknown tool', legacyHeaders, call('nope', {})],
      ['arguments the schema refuses', legacyHeaders, call('search', { query: '' })],
      ['arguments that are not an object', legacyHeaders, call('search', ['x'])],
      ['a fractional id', legacyHeaders, call('search', { query: 'x' }, {}, 1.5)],
      ['a null id', legacyHeaders, call('search', { query: 'x' }, {}, null)],
      ['an unknown member', legacyHeaders, { ...call('search', { query: 'x' }), extra: true }],
      ['an unknown parameter', legacyHeaders, call('search', { query: 'x' }, { task: {} })],
      ['2025 request metadata (a progress token)', legacyHeaders, call('search', { query: 'x' }, { _meta: { progressToken: 1 } })],
      ['a 2025 client that does not accept SSE', { ...legacyHeaders, accept: 'application/json' }, call('search', { query: 'x' })],
      [
        'an unsupported protocol version header',
        { ...legacyHeaders, 'mcp-protocol-version': '2099-01-01' },
        call('search', { query: 'x' }),
      ],
      ['a body that is not JSON by its type', { ...legacyHeaders, 'content-type': 'text/plain' }, call('search', { query: 'x' })],
      ['a 2026 call without its Mcp-Name header', { ...modernHeaders('search'), 'mcp-name': '' }, modernCall('search', { query: 'x' })],
      ['a 2026 call naming another tool in Mcp-Name', modernHeaders('ask'), modernCall('search', { query: 'x' })],
      [
        'a 2026 call without its version header',
        { ...legacyHeaders, 'mcp-method': 'tools/call', 'mcp-name': 'search' },
        modernCall('search', { query: 'x' }),
      ],
      [
        'a 2026 envelope the SDK refuses',
        modernHeaders('search'),
        call('search', { query: 'x' }, { _meta: { ...envelope, 'io.modelcontextprotocol/clientCapabilities': 5 } }),
      ],
      ['a 2025 call with a 2026 version header', modernHeaders('search'), call('search', { query: 'x' })],
    ];
    for (const [what, headers, body] of declined) assert.equal(directToolCall(headers, body), undefined, what);
  });

  it('every platform tool may be answered directly: none mirrors an argument in an HTTP header', () => {
    for (const tool of toolTable.values()) assert.equal(tool.direct, true, tool.def.name);
  });

  it('converts each schema once per process, frozen, so no request can change what the next one publishes', () => {
    const search = toolTable.get('search')!;
    const once = search.input['~standard'].jsonSchema.input({ target: 'draft-2020-12' });
    assert.equal(search.input['~standard'].jsonSchema.input({ target: 'draft-2020-12' }), once);
    assert.ok(Object.isFrozen(once) && Object.isFrozen((once as { properties: object }).properties));
    assert.throws(() => {
      (once as Record<string, unknown>).type = 'string';
    }, TypeError);
    assert.notEqual(search.input['~standard'].jsonSchema.input({ target: 'draft-07' }), once, 'another target is converted on its own');
  });
});

// Tools made up for the SDK's edge cases; the SDK's server and the direct path get the same result from each.
const n = z.object({ n: z.number() });
const cases: { name: string; output?: z.ZodObject; result: CallToolResult | Error }[] = [
  { name: 'object_out', output: n, result: { content: [{ type: 'text', text: '{"n":1}' }], structuredContent: { n: 1 } } },
  { name: 'breaks_output_schema', output: n, result: { content: [{ type: 'text', text: 'x' }], structuredContent: { n: 'x' } } },
  { name: 'no_structured_content', output: n, result: { content: [{ type: 'text', text: 'x' }] } },
  { name: 'error_with_output_schema', output: n, result: { isError: true, content: [{ type: 'text', text: 'no' }] } },
  {
    name: 'error_with_meta',
    result: {
      isError: true,
      content: [{ type: 'text', text: 'no' }],
      structuredContent: { type: 't' },
      _meta: { 'platform/problem': { status: 404 } },
    },
  },
  { name: 'array_with_text', result: { content: [{ type: 'text', text: '[1,2]' }], structuredContent: [1, 2] as never } },
  { name: 'array_without_text', result: { content: [], structuredContent: [1, 2] as never } },
  { name: 'no_content', result: { structuredContent: { a: 1 } } as never },
  { name: 'throws', result: new Error('the tool broke') },
];

function publishedTool(name: string, output?: z.ZodObject): PublishedTool {
  const def = { name, input: z.strictObject({}), output } as unknown as ToolDef;
  return { def, input: published(def.input), ...(output ? { output: published(output) } : {}), icons: [], meta: {}, direct: true };
}

const run = (result: CallToolResult | Error) => async () => {
  if (result instanceof Error) throw result;
  return structuredClone(result);
};

/** The SDK's answer, served as serveMcp serves each era when the direct path does not take a request. */
async function sdkAnswer(tool: PublishedTool, result: CallToolResult | Error, era: 'legacy' | 'modern', id: string | number) {
  const server = () => {
    const s = new McpServer(serverInfo, { capabilities: { tools: {} } });
    s.registerTool(tool.def.name, { inputSchema: tool.input, ...(tool.output ? { outputSchema: tool.output } : {}) }, run(result));
    return s;
  };
  const body = era === 'legacy' ? call(tool.def.name, {}, {}, id) : modernCall(tool.def.name, {}, id);
  const request = new Request('http://localhost/mcp', {
    method: 'POST',
    headers: era === 'legacy' ? legacyHeaders : modernHeaders(tool.def.name),
    body: JSON.stringify(body),
  });
  let response: Response;
  if (era === 'legacy') {
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server().connect(transport);
    response = await transport.handleRequest(request, { parsedBody: body });
  } else response = await createMcpHandler(server, { legacy: 'reject', responseMode: 'auto' }).fetch(request, { parsedBody: body });
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
  return JSON.parse(await response.text());
}

describe('what the direct path answers', () => {
  for (const era of ['legacy', 'modern'] as const)
    it(`answers as the SDK's server does (${era === 'legacy' ? '2025 era' : '2026-07-28'}), edge cases included`, async () => {
      for (const [i, c] of cases.entries()) {
        const tool = publishedTool(c.name, c.output);
        const id = i % 2 ? i : `id-${i}`;
        const direct: DirectToolCall = { id, tool, input: {}, era, tasks: false };
        const mine = JSON.parse(await answerDirect(direct, run(c.result)));
        assert.deepEqual(mine, await sdkAnswer(tool, c.result, era, id), c.name);
      }
    });
});
