// The /mcp server's protocol surface without engines: serveMcp on a bare HTTP server, a caller that
// may use every tool, and clients of every protocol revision we serve: 2026-07-28 (the TS SDK v2
// client and the Python SDK's), 2025-11-25 (the TS SDK v1 client) and 2025-06-18 (raw JSON-RPC).
// What each tool publishes (schemas, icons) is checked here, through tools/list.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createLogger } from '../../src/kernel/logging/logger.js';
import type { OperationContext } from '../../src/operations/services.js';
import { serveMcp } from '../../src/mcp-server/server.js';
import { portableJsonSchema } from '../../src/mcp-server/schemas.js';
import { tools } from '../../src/mcp-server/tools.js';

let http: Server;
let url: URL;

/** Every scope, and no store: a call with invalid arguments (relay_status with a bad workspace_id) is answered before any store is needed. */
const operation = {
  services: { logger: createLogger('silent') },
  state: {
    requestId: 'unit',
    channel: 'mcp',
    principal: { actor: { id: 'unit', kind: 'user' }, scopes: { toJSON: () => ['*'], allows: () => true } },
  },
} as unknown as OperationContext;

before(async () => {
  http = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : {};
    await serveMcp(operation, req, res, body);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  url = new URL(`http://127.0.0.1:${(http.address() as { port: number }).port}/mcp`);
});
after(() => new Promise<void>((resolve) => http.close(() => resolve())));

async function modernClient(): Promise<ClientV2> {
  const client = new ClientV2({ name: 'unit-v2', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(new TransportV2(url));
  return client;
}

async function legacyClient(): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: 'unit-v1', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(url);
  await client.connect(transport);
  return { client, transport };
}

type Schema = Record<string, unknown>;

/** Where a schema holds schemas (JSON Schema 2020-12): one, a list, or a map of them. */
const oneSchema = ['additionalProperties', 'items', 'not', 'if', 'then', 'else', 'contains', 'propertyNames', 'unevaluatedProperties'];
const schemaList = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];
const schemaMap = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];

/** The places in a schema that clients read badly: a bare `{}` (no type, nothing said) or a `type` array. */
function unportable(schema: unknown, at: string): string[] {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return [];
  const s = schema as Schema;
  const found: string[] = [];
  if (Object.keys(s).length === 0) found.push(`${at}: {}`);
  if (Array.isArray(s.type)) found.push(`${at}: type ${JSON.stringify(s.type)}`);
  for (const [key, value] of Object.entries(s)) {
    if (oneSchema.includes(key)) found.push(...unportable(value, `${at}/${key}`));
    else if (schemaList.includes(key) && Array.isArray(value)) value.forEach((v, i) => found.push(...unportable(v, `${at}/${key}/${i}`)));
    else if (schemaMap.includes(key) && value && typeof value === 'object')
      for (const [name, v] of Object.entries(value)) found.push(...unportable(v, `${at}/${key}/${name}`));
  }
  return found;
}

describe('the MCP server across protocol revisions', () => {
  it('negotiates 2026-07-28 with the TS SDK v2 client, then lists and calls tools with the per-request envelope', async () => {
    const client = await modernClient();
    try {
      assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
      const listed = await client.listTools();
      assert.deepEqual(listed.tools.map((t) => t.name).sort(), tools.map((t) => t.name).sort());
      const reply = await client.callTool({ name: 'relay_status', arguments: { workspace_id: 'not-a-uuid' } });
      assert.equal(reply.isError, true);
      assert.match((reply.content as { text: string }[])[0]!.text, /workspace_id/);
    } finally {
      await client.close();
    }
  });

  it('still serves 2025-06-18: initialize answers that revision, and requests naming it are answered as JSON', async () => {
    const post = async (body: unknown, headers: Record<string, string> = {}) => {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify(body),
      });
      assert.equal(res.headers.get('content-type'), 'application/json');
      return (await res.json()) as { result: Record<string, any> };
    };
    const init = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    assert.equal(init.result.protocolVersion, '2025-06-18');
    const listed = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'mcp-protocol-version': '2025-06-18' });
    assert.equal(listed.result.tools.length, tools.length);
    const called = await post(
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'relay_status', arguments: { workspace_id: 'not-a-uuid' } } },
      { 'mcp-protocol-version': '2025-06-18' },
    );
    assert.equal(called.result.isError, true);
  });

  it('publishes portable schemas: no bare {} and no type array in any input or output schema, in either era', async () => {
    const modern = await modernClient();
    const { client: legacy } = await legacyClient();
    try {
      const [modernTools, legacyTools] = [(await modern.listTools()).tools, (await legacy.listTools()).tools];
      const found = modernTools.flatMap((t) => [
        ...unportable(t.inputSchema, `${t.name} input`),
        ...unportable(t.outputSchema, `${t.name} output`),
      ]);
      assert.deepEqual(found, []);
      assert.equal(modernTools.filter((t) => t.outputSchema).length, tools.length, 'every tool has an output schema, walked too');
      for (const t of modernTools) assert.equal(t.outputSchema?.type, 'object', `${t.name}: an object at the root of its output schema`);
      for (const t of legacyTools) {
        const same = modernTools.find((m) => m.name === t.name)!;
        assert.deepEqual(t.inputSchema, same.inputSchema, `${t.name}: one input schema for both eras`);
        assert.deepEqual(t.outputSchema, same.outputSchema, `${t.name}: one output schema for both eras`);
      }
    } finally {
      await Promise.all([modern.close(), legacy.close()]);
    }
  });

  it('gives every tool an icon in the protocol field, in either era', async () => {
    const modern = await modernClient();
    const { client: legacy } = await legacyClient();
    try {
      for (const listed of [(await modern.listTools()).tools, (await legacy.listTools()).tools]) {
        assert.equal(listed.length, tools.length);
        for (const t of listed) {
          const icon = t.icons?.[0];
          assert.ok(icon, `${t.name} has icons`);
          assert.match(icon.src, /^data:image\/svg\+xml;base64,/, t.name);
          assert.equal(icon.mimeType, 'image/svg+xml');
          const emoji = tools.find((d) => d.name === t.name)!.icon;
          assert.ok(Buffer.from(icon.src.split(',')[1]!, 'base64').toString('utf8').includes(emoji), `${t.name} draws its ${emoji}`);
        }
      }
    } finally {
      await Promise.all([modern.close(), legacy.close()]);
    }
  });
});

describe('portableJsonSchema', () => {
  it('turns type arrays into anyOf, drops what an empty schema allows anyway, and names every type for an unconstrained value', () => {
    assert.deepEqual(portableJsonSchema({ type: ['string', 'null'], description: 'd' }), {
      description: 'd',
      anyOf: [{ type: 'string' }, { type: 'null' }],
    });
    assert.deepEqual(portableJsonSchema({ type: 'object', properties: { a: {} }, additionalProperties: {} }), {
      type: 'object',
      properties: {
        a: { description: 'Any JSON value.', anyOf: ['string', 'number', 'boolean', 'object', 'array', 'null'].map((type) => ({ type })) },
      },
    });
    assert.deepEqual(portableJsonSchema({ type: 'object', properties: {}, additionalProperties: false }), {
      type: 'object',
      additionalProperties: false,
    });
    assert.deepEqual(portableJsonSchema({ type: ['number', 'null'], anyOf: [{ minimum: 0 }, { maximum: -5 }] }), {
      allOf: [{ anyOf: [{ minimum: 0 }, { maximum: -5 }] }, { anyOf: [{ type: 'number' }, { type: 'null' }] }],
    });
    assert.deepEqual(portableJsonSchema({ type: 'array', items: { type: ['integer', 'null'] } }), {
      type: 'array',
      items: { anyOf: [{ type: 'integer' }, { type: 'null' }] },
    });
  });
});
