// tools/call over the platform's /mcp, answered by the direct path (src/mcp-server/direct-call.ts):
// the same answers as the SDK's per-request server gives for the same calls by the same callers, in
// both protocol eras; and, under concurrent calls by different callers, every answer is for its own
// caller's principal (what it may see, what its scopes allow), never another's.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { principalFromBearer } from '../../src/identity/credentials.js';
import { serveMcp } from '../../src/mcp-server/server.js';
import { createApiKey } from '../helpers/credentials.js';
import { eventually, type Api } from '../helpers/http.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

let platform: TestPlatform;
let alice: Api & { userId: string };
let bob: Api & { userId: string };
/** Alice's key that may read artifacts but not search. */
let readOnlyKey: string;
/** The SDK's own serving of the same platform (serveMcp with the direct path off), for comparison. */
let sdk: Server;
let sdkUrl: string;
const mine = { alice: '', bob: '' };
const workspace = { alice: '', bob: '' };

before(async () => {
  platform = await startPlatform({}, { worker: false });
  [alice, bob] = await Promise.all([platform.newUser(), platform.newUser()]);
  readOnlyKey = (await createApiKey(alice, ['artifact:read'])).key;
  for (const [who, api, word] of [
    ['alice', alice, 'alicorn'],
    ['bob', bob, 'bobolink'],
  ] as const) {
    workspace[who] = (await api.post('/workspaces', { name: `${who}'s` })).body.id;
    const created = await api.post('/artifacts', {
      title: `${word} notes`,
      content_type: 'text/plain',
      content: `${word} sightings, shared word heron`,
      collection_id: workspace[who],
    });
    assert.equal(created.status, 201, created.text);
    mine[who] = created.body.id;
  }
  // Indexing follows the write: wait until each sees their own artifact by the shared word.
  for (const api of [alice, bob])
    await eventually(async () => (await api.post('/artifacts/search', { query: 'heron' })).body?.results?.length > 0, 20_000, 'indexed');

  sdk = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    const token = String(req.headers.authorization).replace(/^Bearer /, '');
    const principal = await principalFromBearer(platform.services, token, [platform.config.apiUri, platform.url]);
    const state = { principal, requestId: randomUUID(), channel: 'mcp' as const, publicBase: platform.url };
    await serveMcp({ services: platform.services, state }, req, res, body, { direct: false });
  });
  await new Promise<void>((resolve) => sdk.listen(0, '127.0.0.1', resolve));
  sdkUrl = `http://127.0.0.1:${(sdk.address() as { port: number }).port}`;
});
after(async () => {
  await new Promise((resolve) => sdk?.close(resolve));
  await platform.close();
});

type Era = 'legacy' | 'modern';
const envelope = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'test', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** One raw tools/call, as a client of that era sends it. */
function post(base: string, token: string, era: Era, name: string, args: Record<string, unknown>, id: string | number = 1) {
  return fetch(`${base}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(era === 'modern' ? { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': name } : {}),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name, arguments: args, ...(era === 'modern' ? { _meta: envelope } : {}) },
    }),
  });
}

/** One raw tools/call, as a client of that era sends it; the parsed JSON-RPC answer. */
async function toolCall(base: string, token: string, era: Era, name: string, args: Record<string, unknown>, id: string | number = 1) {
  const res = await post(base, token, era, name, args, id);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  return (await res.json()) as { id: unknown; result?: Record<string, any>; error?: { code: number; message: string } };
}

/** An answer without what differs from call to call (how long the search took), text content included. */
function comparable(answer: unknown): unknown {
  return JSON.parse(JSON.stringify(answer), function (key, value) {
    if (key === 'took_ms') return undefined;
    if (key === 'text' && typeof value === 'string' && value.startsWith('{'))
      return JSON.parse(value, (k, v) => (k === 'took_ms' ? undefined : v));
    return value;
  });
}

describe('tools/call over /mcp, answered directly', () => {
  it('answers every kind of call as the SDK does, for the same callers, in both eras', async () => {
    const calls: [string, string, Record<string, unknown>][] = [
      ['alice', 'search', { query: 'heron' }],
      ['alice', 'search', { query: 'alicorn', limit: 3, preset: 'content-heavy' }],
      ['bob', 'search', { query: 'heron' }],
      ['alice', 'get_artifact', { id: mine.alice }],
      ['alice', 'get_artifact', { id: mine.bob }], // not visible: a not-found tool error with its problem
      ['alice', 'browse_workspaces', { with_artifacts: true }],
      ['bob', 'browse_collections', {}],
      ['alice', 'manage_artifact', { id: randomUUID(), action: 'archive' }], // an error from a tool with an output schema
      ['alice', 'update_artifact', { id: mine.bob, title: 'not yours' }],
      ['alice', 'commit_preview', { workspace_id: workspace.bob, collection_id: randomUUID() }],
      ['alice', 'relay_status', {}],
      ['key', 'get_artifact', { id: mine.alice }],
    ];
    const tokens: Record<string, string> = { alice: alice.token!, bob: bob.token!, key: readOnlyKey };
    for (const era of ['legacy', 'modern'] as const)
      for (const [i, [who, name, args]] of calls.entries()) {
        const id = i % 2 ? i : `call-${i}`;
        const direct = await toolCall(platform.url, tokens[who]!, era, name, args, id);
        const viaSdk = await toolCall(sdkUrl, tokens[who]!, era, name, args, id);
        assert.equal(direct.id, id);
        assert.ok(direct.result, `${era} ${name}: a result`);
        assert.deepEqual(comparable(direct), comparable(viaSdk), `${era} ${who} ${name}`);
      }
    // Spot checks that the calls did what they say, so the comparison compares something.
    // A call the key's scopes refuse reaches neither path: 403 insufficient_scope (api/routes/mcp.ts).
    for (const era of ['legacy', 'modern'] as const) {
      const refused = await post(platform.url, readOnlyKey, era, 'search', { query: 'heron' });
      assert.equal(refused.status, 403);
      assert.match(refused.headers.get('www-authenticate') ?? '', /error="insufficient_scope", scope="[^"]*search:read/);
    }
    const hidden = await toolCall(platform.url, alice.token!, 'modern', 'get_artifact', { id: mine.bob });
    assert.equal(hidden.result?._meta?.['platform/problem']?.status, 404);
    assert.equal(hidden.result?._meta?.['io.modelcontextprotocol/serverInfo']?.name, 'platform');
    assert.equal(hidden.result?.resultType, 'complete');
  });

  it('still leaves to the SDK what it does not take, with the SDK’s answers', async () => {
    for (const era of ['legacy', 'modern'] as const) {
      const invalid = await toolCall(platform.url, alice.token!, era, 'search', { query: '' });
      assert.equal(invalid.result?.isError, true);
      assert.match(invalid.result?.content[0].text, /^Input validation error: Invalid arguments for tool search: query/);
      const unknown = await toolCall(platform.url, alice.token!, era, 'no_such_tool', {});
      assert.equal(unknown.error?.code, -32602);
      assert.deepEqual(comparable(invalid), comparable(await toolCall(sdkUrl, alice.token!, era, 'search', { query: '' })));
    }
  });

  it('answers each concurrent caller for their own principal: what they see, what their scopes allow', async () => {
    const callers = [
      { who: 'alice', token: alice.token!, own: mine.alice, other: mine.bob },
      { who: 'bob', token: bob.token!, own: mine.bob, other: mine.alice },
    ];
    const checks: Promise<void>[] = [];
    for (let i = 0; i < 96; i++) {
      const era: Era = i % 2 ? 'legacy' : 'modern';
      const caller = callers[Math.floor(i / 2) % 2]!;
      switch (Math.floor(i / 4) % 3) {
        case 0:
          checks.push(
            toolCall(platform.url, caller.token, era, 'search', { query: 'heron' }, i).then((answer) => {
              assert.equal(answer.id, i);
              const ids = (answer.result?.structuredContent?.results as { id: string }[]).map((r) => r.id);
              assert.ok(ids.includes(caller.own), `${caller.who} finds their own artifact (call ${i})`);
              assert.ok(!ids.includes(caller.other), `${caller.who} never finds the other's artifact (call ${i})`);
            }),
          );
          break;
        case 1:
          checks.push(
            toolCall(platform.url, caller.token, era, 'get_artifact', { id: i % 3 ? caller.own : caller.other }, i).then((answer) => {
              assert.equal(answer.id, i);
              if (i % 3) assert.equal(answer.result?.structuredContent?.id, caller.own, `${caller.who} reads their own (call ${i})`);
              else
                assert.equal(answer.result?._meta?.['platform/problem']?.status, 404, `${caller.who} cannot read the other's (call ${i})`);
            }),
          );
          break;
        default:
          // Alice's read-only key, interleaved with Alice's own calls: refused search (403), allowed read.
          checks.push(
            i % 3
              ? post(platform.url, readOnlyKey, era, 'search', { query: 'heron' }, i).then((res) => {
                  assert.equal(res.status, 403, `the key is refused search (call ${i})`);
                })
              : toolCall(platform.url, readOnlyKey, era, 'get_artifact', { id: mine.alice }, i).then((answer) => {
                  assert.equal(answer.id, i);
                  assert.equal(answer.result?.structuredContent?.id, mine.alice, `the key reads Alice's artifact (call ${i})`);
                }),
          );
      }
    }
    await Promise.all(checks);
  });
});
