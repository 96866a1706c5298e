// What reaches storage is checked first (issue #16): free-form JSON, text, nesting depth, query
// strings, and direct writes into collections. Each case below was a 500, or silently answered 200.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Api, Reply } from '../helpers/http.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

let platform: TestPlatform;
let alice: Api & { userId: string };
let ws: string;
let col: string;
let draft: string;
let mcp: Client;

const artifactCount = () => platform.services.db.collection('artifacts').countDocuments();
/** `{"a": {"a": … 1 …}}`, as text: JSON.stringify itself recurses, and gives up long before 10,000 levels. */
const nestedJson = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
const nested = (depth: number): unknown => JSON.parse(nestedJson(depth));

/** A 400 validation problem whose invalid params name `name` (or a name that starts with it, for deep paths). */
function assertNames(reply: Reply, name: string | RegExp, reason?: RegExp) {
  assert.equal(reply.status, 400, reply.text);
  assert.match(reply.headers.get('content-type') ?? '', /^application\/problem\+json/);
  assert.equal(reply.body.type, 'urn:platform:problem:validation-error', reply.text);
  const param = reply.body.invalid_params.find((p: { name: string }) => (typeof name === 'string' ? p.name === name : name.test(p.name)));
  assert.ok(param, `${name} named in ${reply.text}`);
  if (reason) assert.match(param.reason, reason);
}

before(async () => {
  platform = await startPlatform({}, { worker: false });
  alice = await platform.newUser();
  ws = (await alice.post('/workspaces', { name: 'limits' })).body.id;
  col = (await alice.post('/collections', { name: 'published' })).body.id;
  draft = (
    await alice.post('/artifacts', { title: 'Draft', content_type: 'text/plain', content: 'x', collection_id: ws, context: { keep: 1 } })
  ).body.id;
  mcp = new Client({ name: 'limits-test', version: '1.0.0' });
  await mcp.connect(
    new StreamableHTTPClientTransport(new URL(`${platform.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${alice.token}` } },
    }),
  );
});
after(async () => {
  await mcp.close();
  await platform.close();
});

/** Context values (as JSON text) the store refuses or cannot hold, with the field each answer must name. */
const badContexts: [what: string, context: string, name: string | RegExp, reason: RegExp][] = [
  ['a $-key', '{"$where": "sleep(1000)"}', 'context.$where', /must not start with '\$'/],
  ['a dotted key', '{"a.b": 1}', 'context.a.b', /must not contain '.'/],
  ['a NUL in a key', '{"a\\u0000b": 1}', 'context.a\u0000b', /U\+0000/],
  ['a nested $-key', '{"ok": {"$gt": ""}}', 'context.ok.$gt', /\$/],
  ['an array inside an array', '{"m": [[1]]}', 'context.m.0', /arrays directly inside arrays/],
  ['a prototype key', '{"__proto__": {"polluted": true}}', 'context.__proto__', /reserved/],
  ['40 levels', nestedJson(40), /^context\.a\.a/, /deeper than 32/],
  ['10,000 levels', nestedJson(10_000), /^context\.a\.a/, /deeper than 64/],
  ['a NUL in a value', '{"note": "a\\u0000b"}', 'context.note', /U\+0000/],
  ['a lone surrogate', '{"note": "a\\ud800b"}', 'context.note', /surrogate/],
  ['a key of 201 characters', `{"${'k'.repeat(201)}": 1}`, /^context\.k+$/, /1 to 200 characters/],
  ['an infinite number (1e309)', '{"n": 1e309}', 'context.n', /finite/],
];

/** A JSON body: `fields` and then the `context` field, given as JSON text. */
const send = (method: string, path: string, fields: object, context: string) =>
  alice.request(method, path, {
    raw: `${JSON.stringify(fields).slice(0, -1)}${Object.keys(fields).length ? ',' : ''}"context":${context}}`,
    headers: { 'content-type': 'application/json' },
  });

describe('free-form JSON and text before storage', () => {
  for (const [what, context, name, reason] of badContexts) {
    it(`refuses ${what} in context, on create and on update, writing nothing`, async () => {
      const before = await artifactCount();
      assertNames(
        await send('POST', '/artifacts', { title: 't', content_type: 'text/plain', content: 'c', collection_id: ws }, context),
        name,
        reason,
      );
      assertNames(await send('PATCH', `/artifacts/${draft}`, {}, context), name, reason);
      assert.equal(await artifactCount(), before);
      const unchanged = await alice.get(`/artifacts/${draft}`);
      assert.deepEqual([unchanged.body.revision, unchanged.body.context], [1, { keep: 1 }]);
    });
  }

  it('refuses U+0000 and lone surrogates in title and content, and in any other string of a body', async () => {
    const base = { title: 't', content_type: 'text/plain', content: 'c', collection_id: ws };
    assertNames(await alice.post('/artifacts', { ...base, title: 'a\u0000b' }), 'title', /U\+0000/);
    assertNames(await alice.post('/artifacts', { ...base, content: 'a\u0000b' }), 'content', /U\+0000/);
    assertNames(await alice.post('/artifacts', { ...base, content: '\udc00' }), 'content', /surrogate/);
    assertNames(await alice.patch(`/artifacts/${draft}`, { title: 'x\u0000' }), 'title', /U\+0000/);
    assertNames(await alice.post('/workspaces', { name: 'n\u0000' }), 'name', /U\+0000/);
  });

  it('applies the same rules to workspace and collection metadata', async () => {
    assertNames(await alice.post('/workspaces', { name: 'w', metadata: { $set: 1 } }), 'metadata.$set');
    assertNames(await alice.patch(`/collections/${col}`, { metadata: { m: [[1]] } }), 'metadata.m.0');
    assertNames(await alice.patch(`/workspaces/${ws}`, { metadata: nested(33) }), /^metadata\.a/);
    assert.deepEqual((await alice.get(`/collections/${col}`)).body.metadata, {});
    const ok = await alice.patch(`/workspaces/${ws}`, { metadata: { tags: ['a', 'b'], nested: { 'ключ 🔑': [{ x: 1 }] } } });
    assert.equal(ok.status, 200, ok.text);
  });

  it('bounds typed content in depth before it is re-serialised', async () => {
    const content = nestedJson(10_000);
    const reply = await alice.post('/artifacts', {
      title: 'deep',
      content_type: 'application/vnd.platform.chat+json',
      content,
      collection_id: ws,
    });
    assertNames(reply, /^content\.a/, /deeper than 32/);
  });

  it('refuses bodies that are not UTF-8', async () => {
    const raw = Buffer.concat([Buffer.from('{"title":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);
    const res = await fetch(`${platform.url}/artifacts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${alice.token}`, 'content-type': 'application/json' },
      body: raw,
    });
    assert.equal(res.status, 400);
    assert.equal(((await res.json()) as { type: string }).type, 'urn:platform:problem:malformed-json');
  });

  it('answers the MCP tools with a tool error naming the field, never a crash', async () => {
    const before = await artifactCount();
    const cases: [string, Record<string, unknown>, RegExp][] = [
      [
        'create_artifact',
        { title: 't', content_type: 'text/plain', content: 'c', collection_id: ws, context: { $where: 1 } },
        /context\.\$where|\$where/,
      ],
      ['create_artifact', { title: 'a\u0000b', content_type: 'text/plain', content: 'c', collection_id: ws }, /U\+0000/],
      [
        'create_artifact',
        { title: 't', content_type: 'text/plain', content: 'c', collection_id: ws, context: { m: [[1]] } },
        /arrays directly inside arrays/,
      ],
      ['update_artifact', { id: draft, context: { 'a.b': 1 } }, /must not contain '.'/],
      ['update_artifact', { id: draft, context: nested(40) }, /deeper than 32/],
    ];
    for (const [name, args, message] of cases) {
      const result = await mcp.callTool({ name, arguments: args });
      assert.equal(result.isError, true, `${name} ${JSON.stringify(args).slice(0, 80)}`);
      assert.match((result.content as { text: string }[])[0]!.text, message);
    }
    assert.equal(await artifactCount(), before);
  });
});

describe('strict query strings', () => {
  it('refuses an unknown parameter (a typo) instead of listing everything', async () => {
    const reply = await alice.get(`/artifacts?colection_id=${ws}`);
    assertNames(reply, 'colection_id', /not a parameter here/);
    assert.match(reply.body.detail, /colection_id/);
  });

  it('refuses operator-shaped and repeated parameters', async () => {
    assertNames(await alice.get('/artifacts?collection_id[$ne]=x'), 'collection_id[$ne]');
    assertNames(await alice.get(`/artifacts?collection_id=${ws}&collection_id=${col}`), 'collection_id', /once/);
    assertNames(await alice.get('/workspaces?limit=1&limit=2'), 'limit', /once/);
    assertNames(await alice.get('/commits?state[$regex]=.'), 'state[$regex]');
    assertNames(await alice.get('/artifacts?content_type=text%00plain'), 'content_type', /U\+0000/);
    assertNames(await alice.get('/server-credentials/a%00b'), 'client_id', /U\+0000/);
  });

  it('refuses any parameter where a route takes none, public ones included', async () => {
    assertNames(await alice.get(`/workspaces/${ws}?fields=all`), 'fields', /takes none/);
    assertNames(
      await alice.post(`/artifacts?collection_id=${ws}`, { title: 't', content_type: 'text/plain', content: 'c' }),
      'collection_id',
    );
    assertNames(await platform.api.get('/healthz?verbose=1'), 'verbose');
  });

  it('still takes the parameters a route declares', async () => {
    const reply = await alice.get(`/artifacts?collection_id=${ws}&content_type=text/plain&limit=5`);
    assert.equal(reply.status, 200, reply.text);
    assert.ok(reply.body.items.some((a: { id: string }) => a.id === draft));
  });

  it("lets an OAuth provider's callback carry the parameters the provider adds", async () => {
    const res = await fetch(
      `${platform.url}/connections/${ws}/callback?state=never-issued&code=x&iss=https%3A%2F%2Fidp.example&session_state=abc&scope=openid`,
    );
    assert.equal(res.status, 400);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(await res.text(), /unknown or was replaced/);
    const nul = await fetch(`${platform.url}/connections/${ws}/callback?state=x%00&code=y`);
    assert.equal(nul.status, 400);
    assert.match(await nul.text(), /malformed \(state\)/);
  });
});

describe('collections change only through commits', () => {
  it('refuses POST /artifacts into a collection, even for its owner, and writes nothing', async () => {
    const before = await artifactCount();
    const reply = await alice.post('/artifacts', { title: 'direct', content_type: 'text/plain', content: 'x', collection_id: col });
    assert.equal(reply.status, 409, reply.text);
    assert.equal(reply.body.type, 'urn:platform:problem:collection-write-requires-commit');
    assert.match(reply.body.detail, /create the artifact in a workspace, then commit it/);
    assert.equal(await artifactCount(), before);
  });

  it('answers create_artifact into a collection with the same problem as a tool error', async () => {
    const result = await mcp.callTool({
      name: 'create_artifact',
      arguments: { title: 'direct', content_type: 'text/plain', content: 'x', collection_id: col },
    });
    assert.equal(result.isError, true);
    // The problem is in `_meta` (a tool with an output schema sends no structuredContent on an error).
    assert.equal((result._meta?.['platform/problem'] as { type: string }).type, 'urn:platform:problem:collection-write-requires-commit');
    assert.equal((await alice.get(`/artifacts?collection_id=${col}`)).body.items.length, 0);
  });
});
