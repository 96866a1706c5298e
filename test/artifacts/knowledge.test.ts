import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Api } from '../helpers/http.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';
import { commitInto } from '../helpers/commit.js';

let platform: TestPlatform;
let alice: Api & { userId: string };
let bob: Api & { userId: string };

before(async () => {
  platform = await startPlatform({}, { worker: false });
  [alice, bob] = await Promise.all([platform.newUser(), platform.newUser()]);
});
after(() => platform.close());

const count = (name: string) => platform.services.db.collection(name).countDocuments();

async function workspace(api: Api, name = 'ws'): Promise<string> {
  const reply = await api.post('/workspaces', { name });
  assert.equal(reply.status, 201, reply.text);
  return reply.body.id;
}

async function artifact(api: Api, collectionId: string, title: string, extra: Record<string, unknown> = {}) {
  const reply = await api.post('/artifacts', {
    title,
    content_type: 'text/markdown',
    content: `# ${title}`,
    collection_id: collectionId,
    ...extra,
  });
  assert.equal(reply.status, 201, reply.text);
  return reply.body;
}

describe('workspaces and collections', () => {
  for (const kind of ['workspaces', 'collections'] as const) {
    it(`creates, reads, lists and updates ${kind}, each visible only to its owner`, async () => {
      const created = await alice.post(`/${kind}`, { name: 'Research', description: 'notes', metadata: { team: 'a' } });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.body.owner_id, alice.userId);
      assert.equal(created.body.kind, kind.slice(0, -1));
      const id = created.body.id;
      assert.deepEqual((await alice.get(`/${kind}/${id}`)).body, created.body);
      const patched = await alice.patch(`/${kind}/${id}`, { name: 'Research 2' });
      assert.equal(patched.body.name, 'Research 2');
      assert.equal(patched.body.description, 'notes');
      assert.ok((await alice.get(`/${kind}`)).body.items.some((w: { id: string }) => w.id === id));

      assert.equal((await bob.get(`/${kind}/${id}`)).status, 404, 'invisible to others');
      assert.equal((await bob.patch(`/${kind}/${id}`, { name: 'hijack' })).status, 404);
      assert.ok(!(await bob.get(`/${kind}`)).body.items.some((w: { id: string }) => w.id === id));
      assert.equal((await alice.get(`/${kind}/${id}`)).body.name, 'Research 2', 'unchanged by the refused patch');
    });
  }

  it('pages through workspaces with a cursor', async () => {
    const user = await platform.newUser();
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push(await workspace(user, `w${i}`));
    const first = await user.get('/workspaces?limit=2');
    assert.equal(first.body.items.length, 2);
    const seen = [...first.body.items];
    let cursor = first.body.next_cursor;
    while (cursor) {
      const page = await user.get(`/workspaces?limit=2&cursor=${cursor}`);
      seen.push(...page.body.items);
      cursor = page.body.next_cursor;
    }
    assert.deepEqual(
      seen.map((w) => w.id),
      ids,
    );
  });

  it('rejects an empty name and an empty patch', async () => {
    const before = await count('workspaces');
    assert.equal((await alice.post('/workspaces', { name: '  ' })).status, 400);
    const id = await workspace(alice);
    assert.equal((await alice.patch(`/workspaces/${id}`, {})).status, 400);
    assert.equal(await count('workspaces'), before + 1);
  });
});

describe('artifacts', () => {
  it('creates an artifact in a workspace and reads it back with provenance', async () => {
    const ws = await workspace(alice);
    const created = await artifact(alice, ws, 'Hello', { context: { tags: ['a'] } });
    assert.equal(created.collection_id, ws);
    assert.equal(created.container, 'workspace');
    assert.equal(created.provenance.created_by, alice.userId);
    assert.equal(created.provenance.source.kind, 'api');
    assert.ok(created.provenance.source.request_id);
    const read = await alice.get(`/artifacts/${created.id}`);
    assert.equal(read.status, 200);
    assert.deepEqual(read.body, created);
    assert.equal((await bob.get(`/artifacts/${created.id}`)).status, 404, 'invisible to others');
  });

  it("puts an artifact without collection_id into the caller's default workspace, always the same one", async () => {
    const user = await platform.newUser();
    const [a, b] = await Promise.all([
      user.post('/artifacts', { title: 'a', content_type: 'text/plain', content: 'a' }),
      user.post('/artifacts', { title: 'b', content_type: 'text/plain', content: 'b' }),
    ]);
    assert.equal(a.status, 201, a.text);
    assert.equal(a.body.collection_id, b.body.collection_id);
    const ws = await user.get(`/workspaces/${a.body.collection_id}`);
    assert.equal(ws.body.name, 'My workspace');
  });

  it('refuses to create into a workspace the caller cannot see, and writes nothing', async () => {
    const ws = await workspace(alice);
    const before = await count('artifacts');
    const reply = await bob.post('/artifacts', { title: 'x', content_type: 'text/plain', content: 'x', collection_id: ws });
    assert.equal(reply.status, 404);
    assert.equal(await count('artifacts'), before);
  });

  it('updates a draft, bumping its revision and provenance', async () => {
    const ws = await workspace(alice);
    const created = await artifact(alice, ws, 'Draft');
    const patched = await alice.patch(`/artifacts/${created.id}`, { title: 'Draft 2', context: { k: 1 } });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.body.title, 'Draft 2');
    assert.equal(patched.body.content, created.content);
    assert.equal(patched.body.revision, 2);
    assert.deepEqual(patched.body.context, { k: 1 });
    assert.ok(patched.body.provenance.updated_at >= created.provenance.updated_at);
    assert.equal((await bob.patch(`/artifacts/${created.id}`, { title: 'hijack' })).status, 404);
    assert.equal((await alice.get(`/artifacts/${created.id}`)).body.title, 'Draft 2');
  });

  it('writes into a collection only by commit, and keeps collection artifacts immutable', async () => {
    const collection = (await alice.post('/collections', { name: 'Published' })).body.id;
    const direct = await alice.post('/artifacts', {
      title: 'Direct',
      content_type: 'text/markdown',
      content: '# Direct',
      collection_id: collection,
    });
    assert.equal(direct.status, 409, direct.text);
    assert.equal(direct.body.type, 'urn:platform:problem:collection-write-requires-commit');
    await platform.startWorker();
    const [id] = await commitInto(alice, collection, [{ title: 'Fixed', content_type: 'text/markdown', content: '# Fixed' }]).finally(() =>
      platform.stopWorker(),
    );
    const created = (await alice.get(`/artifacts/${id}`)).body;
    assert.equal(created.container, 'collection');
    const reply = await alice.patch(`/artifacts/${created.id}`, { title: 'changed' });
    assert.equal(reply.status, 409);
    assert.equal(reply.body.type, 'urn:platform:problem:immutable-artifact');
    assert.equal((await alice.delete(`/artifacts/${created.id}`)).status, 409);
    assert.equal((await alice.get(`/artifacts/${created.id}`)).body.title, 'Fixed');
  });

  it('deletes a draft', async () => {
    const ws = await workspace(alice);
    const created = await artifact(alice, ws, 'Gone soon');
    assert.equal((await bob.delete(`/artifacts/${created.id}`)).status, 404);
    assert.equal((await alice.delete(`/artifacts/${created.id}`)).status, 204);
    assert.equal((await alice.get(`/artifacts/${created.id}`)).status, 404);
  });

  it('orders a workspace by fractional index keys, with moves', async () => {
    const ws = await workspace(alice);
    const [a, b, c] = [await artifact(alice, ws, 'A'), await artifact(alice, ws, 'B'), await artifact(alice, ws, 'C')];
    assert.ok(a.order_key < b.order_key && b.order_key < c.order_key);
    assert.match(a.order_key, /^[0-9A-Za-z]+$/, 'base-62 keys');
    const titles = async () => (await alice.get(`/artifacts?collection_id=${ws}`)).body.items.map((x: { title: string }) => x.title);
    assert.deepEqual(await titles(), ['A', 'B', 'C']);

    assert.equal((await alice.post(`/artifacts/${c.id}/move`, { after_id: null })).status, 200);
    assert.deepEqual(await titles(), ['C', 'A', 'B']);
    assert.equal((await alice.post(`/artifacts/${c.id}/move`, { after_id: a.id })).status, 200);
    assert.deepEqual(await titles(), ['A', 'C', 'B']);
    assert.equal((await alice.post(`/artifacts/${a.id}/move`, { after_id: b.id })).status, 200);
    assert.deepEqual(await titles(), ['C', 'B', 'A']);

    const other = await artifact(alice, await workspace(alice), 'Elsewhere');
    assert.equal((await alice.post(`/artifacts/${a.id}/move`, { after_id: other.id })).status, 400);
    assert.equal((await alice.post(`/artifacts/${a.id}/move`, { after_id: a.id })).status, 400);
    assert.equal((await alice.post(`/artifacts/${a.id}/move`, {})).status, 400);
    assert.deepEqual(await titles(), ['C', 'B', 'A'], 'refused moves change nothing');
  });

  it('gives concurrent appends distinct keys', async () => {
    const ws = await workspace(alice);
    const created = await Promise.all(Array.from({ length: 6 }, (_, i) => artifact(alice, ws, `P${i}`)));
    assert.equal(new Set(created.map((x) => x.order_key)).size, 6);
  });

  it('lists with filters and cursor pagination, never across owners', async () => {
    const ws = await workspace(alice);
    for (let i = 0; i < 5; i++) await artifact(alice, ws, `N${i}`);
    await alice.post('/artifacts', { title: 'J', content_type: 'application/json', content: '{"a":1}', collection_id: ws });
    const json = await alice.get(`/artifacts?collection_id=${ws}&content_type=application/json`);
    assert.deepEqual(
      json.body.items.map((x: { title: string }) => x.title),
      ['J'],
    );

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { items: { title: string }[]; next_cursor: string | null } } = await alice.get(
        `/artifacts?collection_id=${ws}&limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      );
      assert.ok(page.body.items.length <= 2);
      seen.push(...page.body.items.map((x) => x.title));
      cursor = page.body.next_cursor;
    } while (cursor);
    assert.deepEqual(seen, ['N0', 'N1', 'N2', 'N3', 'N4', 'J']);

    const bobsView = await bob.get('/artifacts?limit=200');
    assert.ok(!bobsView.body.items.some((x: { collection_id: string }) => x.collection_id === ws));
    assert.equal((await bob.get(`/artifacts?collection_id=${ws}`)).status, 404);
  });
});

describe('typed content', () => {
  const mcpServer = 'application/vnd.platform.mcp-server+json';
  let ws: string;
  before(async () => (ws = await workspace(alice, 'typed')));

  async function createTyped(contentType: string, content: unknown) {
    return alice.post('/artifacts', {
      title: 't',
      content_type: contentType,
      content: typeof content === 'string' ? content : JSON.stringify(content),
      collection_id: ws,
    });
  }

  it('accepts an http MCP server registration', async () => {
    const reply = await createTyped(mcpServer, {
      transport: { type: 'http', well_known: 'https://x.example/.well-known/mcp.json' },
      notes: 'n',
    });
    assert.equal(reply.status, 201, reply.text);
    assert.equal(JSON.parse(reply.body.content).transport.type, 'http');
  });

  const bad: [string, string, unknown, string][] = [
    [
      'a stdio server while stdio is disabled',
      mcpServer,
      { transport: { type: 'stdio', command: 'npx', args: [] } },
      'content.transport.type',
    ],
    [
      'a command off the allow-list',
      mcpServer,
      { transport: { type: 'stdio', command: 'bash', args: ['-c', 'rm -rf /'] } },
      'content.transport.command',
    ],
    ['a well_known that is not a URL', mcpServer, { transport: { type: 'http', well_known: 'not a url' } }, 'content.transport.well_known'],
    ['an unknown transport', mcpServer, { transport: { type: 'carrier-pigeon' } }, 'content.transport.type'],
    ['content that is not JSON', mcpServer, '{transport', 'content'],
    [
      'an unknown auth mode',
      mcpServer,
      { transport: { type: 'http', well_known: 'https://x.example/.well-known/mcp.json' }, auth: { type: 'basic' } },
      'content.auth.type',
    ],
    [
      'an authorizer without token_url',
      'application/vnd.platform.authorizer+json',
      { provider: 'p', auth_url: 'https://a.example/auth', scopes: [], client_id: 'c', pkce: true },
      'content.token_url',
    ],
    ['an unknown platform type', 'application/vnd.platform.teleporter+json', {}, 'content_type'],
    ['invalid JSON for application/json', 'application/json', '{"a":', 'content'],
    ['a content_type that is not a MIME type', 'markdown', 'x', 'content_type'],
  ];
  for (const [what, contentType, content, field] of bad) {
    it(`refuses ${what} with a 400 naming ${field}, writing nothing`, async () => {
      const before = await count('artifacts');
      const reply = await createTyped(contentType, content);
      assert.equal(reply.status, 400, reply.text);
      assert.ok(
        reply.body.invalid_params.some((p: { name: string }) => p.name === field),
        `${field} in ${JSON.stringify(reply.body.invalid_params)}`,
      );
      assert.equal(await count('artifacts'), before);
    });
  }

  it('validates typed content on update too', async () => {
    const created = await createTyped(mcpServer, { transport: { type: 'http', well_known: 'https://x.example/.well-known/mcp.json' } });
    const reply = await alice.patch(`/artifacts/${created.body.id}`, {
      content: JSON.stringify({ transport: { type: 'stdio', command: 'sh' } }),
    });
    assert.equal(reply.status, 400);
    assert.equal((await alice.get(`/artifacts/${created.body.id}`)).body.content, created.body.content);
  });
});

describe('typed content with stdio allowed', () => {
  it("accepts a stdio server that spells out a catalog entry, stored with the entry's pinned launch", async () => {
    const p = await startPlatform({ ALLOW_STDIO_MCP_SERVERS: 'true' }, { worker: false });
    try {
      const admin = await p.admin();
      const ws = (await admin.post('/workspaces', { name: 'stdio' })).body.id;
      const reply = await admin.post('/artifacts', {
        title: 'everything',
        content_type: 'application/vnd.platform.mcp-server+json',
        content: JSON.stringify({ transport: { type: 'stdio', command: 'npx', args: ['@modelcontextprotocol/server-everything'] } }),
        collection_id: ws,
      });
      assert.equal(reply.status, 201, reply.text);
      assert.deepEqual(JSON.parse(reply.body.content).transport, {
        type: 'stdio',
        catalog_entry: 'server-everything',
        params: {},
        command: 'npx',
        args: ['--no-install', '@modelcontextprotocol/server-everything@2026.8.31', 'stdio'],
        env: {},
      });
    } finally {
      await p.close();
    }
  });
});
