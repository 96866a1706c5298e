// Bulk import end to end (issue #33): JSON, NDJSON and multipart files through POST
// /workspaces/{id}/imports, the import workflow writing them in batches, the report, item keys that
// make a re-import write nothing, the events and search of what was imported, and every refusal.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { eventually, type Api, type Reply } from '../helpers/http.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';
import { textPdfs } from '../../bench/seed/pdfs.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

let platform: TestPlatform;
let admin: Api;

before(async () => {
  // Batches of 7: an import of 30 runs as several activities, so the progress moves between them.
  platform = await startPlatform({ IMPORT_BATCH: '7', IMPORT_MAX_ITEMS: '200', MCP_OUTBOUND_ALLOW: '127.0.0.0/8' });
  admin = await platform.admin();
});
after(() => platform.close());

const workspace = async (api: Api = admin, name = 'imports') => (await api.post('/workspaces', { name })).body.id as string;

async function send(api: Api, ws: string, body: string | FormData, type?: string, headers: Record<string, string> = {}): Promise<Reply> {
  const res = await fetch(`${api.url}/workspaces/${ws}/imports`, {
    method: 'POST',
    headers: { authorization: `Bearer ${api.token}`, ...(type ? { 'content-type': type } : {}), ...headers },
    body,
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined, text };
}

async function finished(id: string, api: Api = admin) {
  return eventually(
    async () => {
      const body = (await api.get(`/imports/${id}`)).body;
      return body.state !== 'running' ? body : null;
    },
    60_000,
    `import ${id} finished`,
  );
}

async function outcomes(id: string, status?: string) {
  const all: { seq: number; key: string; status: string; artifact_id: string | null; reason: string | null; message: string | null }[] = [];
  let cursor: string | null = null;
  do {
    const reply: Reply = await admin.get(
      `/imports/${id}/items?limit=11${status ? `&status=${status}` : ''}${cursor ? `&cursor=${cursor}` : ''}`,
    );
    assert.equal(reply.status, 200, reply.text);
    all.push(...reply.body.items);
    cursor = reply.body.next_cursor;
  } while (cursor);
  return all;
}

const docs = (n: number, prefix: string) =>
  Array.from({ length: n }, (_, i) => ({
    key: `${prefix}/${i}`,
    title: `${prefix} document ${i}`,
    content_type: 'text/markdown',
    content: `# ${prefix} ${i}\n\nThe ${prefix} handbook, chapter ${i}: zephyrine${i} gardens.`,
    context: { chapter: i },
  }));

describe('bulk import', () => {
  it('imports a JSON array in batches, reports each item, and a re-import writes nothing', async () => {
    const ws = await workspace();
    const reply = await send(admin, ws, JSON.stringify(docs(30, 'alpha')), 'application/json');
    assert.equal(reply.status, 202, reply.text);
    assert.equal(reply.headers.get('location'), `/imports/${reply.body.id}`);
    assert.equal(reply.body.total, 30);
    assert.equal(reply.body.workflow_id, `import-${ws}-${reply.body.id}`);
    const done = await finished(reply.body.id);
    assert.equal(done.state, 'completed');
    assert.deepEqual(done.counts, { done: 30, created: 30, skipped: 0, failed: 0, remaining: 0 });

    const items = await outcomes(reply.body.id);
    assert.deepEqual(
      items.map((i) => i.seq),
      Array.from({ length: 30 }, (_, i) => i),
    );
    const listed = (await admin.get(`/artifacts?collection_id=${ws}&limit=100`)).body.items;
    assert.equal(listed.length, 30);
    // In item order, each with its fields and its import as provenance.
    assert.deepEqual(
      listed.map((a: { title: string }) => a.title),
      docs(30, 'alpha').map((d) => d.title),
    );
    assert.deepEqual(new Set(listed.map((a: { id: string }) => a.id)), new Set(items.map((i) => i.artifact_id)));
    const one = (await admin.get(`/artifacts/${items[3]!.artifact_id}`)).body;
    assert.equal(one.content, docs(30, 'alpha')[3]!.content);
    assert.deepEqual(one.context, { chapter: 3 });
    assert.equal(one.provenance.source.kind, 'import');
    assert.equal(one.provenance.source.import_id, reply.body.id);

    // Searchable by its words, and each item's artifact_created event recorded once.
    await eventually(
      async () => {
        const hits = (await admin.post('/artifacts/search', { query: 'zephyrine17', workspace_ids: [ws] })).body.results;
        return hits?.[0]?.id === items[17]!.artifact_id;
      },
      20_000,
      'the imported document found by a word of it',
    );
    await eventually(
      async () => {
        const events = (await admin.get(`/workspaces/${ws}/events?limit=200`)).body.items as { kind: string; artifact_id: string }[];
        const created = events.filter((e) => e.kind === 'artifact_created').map((e) => e.artifact_id);
        return created.length === 30 && new Set(created).size === 30;
      },
      30_000,
      'one artifact_created event per item',
    );

    // The same keys again: skipped, naming the artifact imported before; nothing new written.
    const again = await send(admin, ws, JSON.stringify(docs(30, 'alpha')), 'application/json');
    assert.equal(again.status, 202);
    const second = await finished(again.body.id);
    assert.deepEqual(second.counts, { done: 30, created: 0, skipped: 30, failed: 0, remaining: 0 });
    const skipped = await outcomes(again.body.id, 'skipped');
    assert.equal(skipped[5]!.reason, 'duplicate-key');
    assert.equal(skipped[5]!.artifact_id, items[5]!.artifact_id);
    assert.equal((await admin.get(`/artifacts?collection_id=${ws}&limit=100`)).body.items.length, 30);
    const imports = (await admin.get(`/workspaces/${ws}/imports`)).body.items;
    assert.deepEqual(
      imports.map((i: { id: string }) => i.id),
      [again.body.id, reply.body.id],
    );
  });

  it('answers a replay with the same Idempotency-Key with the same import, and refuses the key for another body', async () => {
    const ws = await workspace();
    const body = JSON.stringify(docs(3, 'beta'));
    const first = await send(admin, ws, body, 'application/json', { 'idempotency-key': 'beta-1' });
    assert.equal(first.status, 202, first.text);
    await finished(first.body.id);
    const replay = await send(admin, ws, body, 'application/json', { 'idempotency-key': 'beta-1' });
    assert.equal(replay.status, 200, replay.text);
    assert.equal(replay.body.id, first.body.id);
    assert.equal(replay.body.counts.created, 3);
    const other = await send(admin, ws, JSON.stringify(docs(4, 'beta')), 'application/json', { 'idempotency-key': 'beta-1' });
    assert.equal(other.status, 409, other.text);
    assert.equal(other.body.type.endsWith('idempotency-key-reused'), true, other.text);
    // Listed newest first by when they were asked for, whatever the keyed import's id.
    const later = await send(admin, ws, JSON.stringify(docs(2, 'beta-later')), 'application/json');
    const firstPage = (await admin.get(`/workspaces/${ws}/imports?limit=1`)).body;
    const secondPage = (await admin.get(`/workspaces/${ws}/imports?limit=1&cursor=${firstPage.next_cursor}`)).body;
    assert.deepEqual(
      [...firstPage.items, ...secondPage.items].map((i: { id: string }) => i.id),
      [later.body.id, first.body.id],
    );
    assert.equal(secondPage.next_cursor, null);
  });

  it('reports bad NDJSON lines and refused types as failed items, and imports the rest', async () => {
    const ws = await workspace();
    const lines = [
      JSON.stringify({ title: 'Good one', content_type: 'text/plain', content: 'quillwort meadow' }),
      '{ not json',
      JSON.stringify({ title: '', content_type: 'text/plain', content: 'no title' }),
      JSON.stringify({ title: 'A server', content_type: 'application/vnd.platform.mcp-server+json', content: '{}' }),
      JSON.stringify({ title: 'Extra', content_type: 'text/plain', content: 'x', owner: 'me' }),
      '',
      JSON.stringify({ title: 'Good two', content_type: 'application/json', content: '{"a":1}', key: 'two' }),
    ].join('\n');
    const reply = await send(admin, ws, lines, 'application/x-ndjson');
    assert.equal(reply.status, 202, reply.text);
    assert.equal(reply.body.source, 'ndjson');
    const done = await finished(reply.body.id);
    assert.deepEqual(done.counts, { done: 6, created: 2, skipped: 0, failed: 4, remaining: 0 });
    const failed = await outcomes(reply.body.id, 'failed');
    assert.deepEqual(
      failed.map((f) => [f.seq, f.reason]),
      [
        [1, 'invalid-json'],
        [2, 'invalid-item'],
        [3, 'platform-type'],
        [4, 'invalid-item'],
      ],
    );
    assert.match(failed[0]!.message!, /line 2/);
    assert.match(failed[1]!.message!, /title/);
    assert.equal((await admin.get(`/artifacts?collection_id=${ws}`)).body.items.length, 2);
  });

  it('imports files: Markdown, HTML (as Markdown, scripts dropped), JSON and a PDF whose pages are searchable', async () => {
    const ws = await workspace();
    const [pdf] = await textPdfs(1, 3);
    const form = new FormData();
    form.append('file', new Blob(['# Field guide\n\nBracken and sorrel.'], { type: 'text/markdown' }), 'guide.md');
    form.append(
      'file',
      new Blob(
        [
          '<html><head><title>Old page</title><script>alert("owned")</script></head><body><h1>Fern</h1><p>Spleenwort grows here.</p></body></html>',
        ],
        {
          type: 'text/html',
        },
      ),
      'old/page.html',
    );
    form.append('file', new Blob(['{"title": "Settings", "depth": 3}'], { type: 'application/json' }), 'settings.json');
    form.append('file', new Blob([new Uint8Array(pdf!.bytes)], { type: 'application/pdf' }), pdf!.name);
    form.append('file', new Blob([new Uint8Array([0x4d, 0x5a, 0x90, 0x00])], { type: 'application/octet-stream' }), 'tool.exe');
    const reply = await send(admin, ws, form);
    assert.equal(reply.status, 202, reply.text);
    assert.equal(reply.body.source, 'files');
    const done = await finished(reply.body.id);
    assert.deepEqual(done.counts, { done: 5, created: 4, skipped: 0, failed: 1, remaining: 0 });
    const all = await outcomes(reply.body.id);
    assert.equal(all[4]!.reason, 'unsupported-type');
    const art = async (seq: number) => (await admin.get(`/artifacts/${all[seq]!.artifact_id}`)).body;
    const md = await art(0);
    assert.equal(md.title, 'Field guide');
    assert.equal(md.content_type, 'text/markdown');
    const html = await art(1);
    assert.equal(html.title, 'Old page');
    assert.equal(html.content_type, 'text/markdown');
    assert.match(html.content, /Spleenwort/);
    assert.doesNotMatch(html.content, /alert|owned/);
    const json = await art(2);
    assert.equal(json.title, 'Settings');
    assert.equal(json.content_type, 'application/json');
    const stored = await art(3);
    assert.equal(stored.content_type, 'application/pdf');
    assert.deepEqual(Buffer.from(stored.content, 'base64'), pdf!.bytes, 'the original PDF is the content');
    // A word drawn only on the PDF's second page finds it.
    const word = pdf!.pageTexts[1]!.split('\n')[1]!.split(' ')[3]!; // a made-up word drawn on page 2 only
    await eventually(
      async () => {
        const hits = (await admin.post('/artifacts/search', { query: word, workspace_ids: [ws] })).body.results;
        return hits?.[0]?.id === all[3]!.artifact_id;
      },
      20_000,
      `the PDF found by "${word}" from its second page`,
    );
  });

  it('fetches URLs, and an item that cannot be read or would be refused by POST /artifacts fails alone, never its batch', async () => {
    const files = createServer((req, res) => {
      res.setHeader('content-type', 'text/markdown');
      res.end(`# Fetched\n\nFrom ${req.url}: sorrel${req.url!.length}.`);
    });
    await new Promise<void>((r) => files.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
    try {
      const ws = await workspace();
      const reply = await send(
        admin,
        ws,
        JSON.stringify({
          items: [
            { title: 'Not JSON', content_type: 'application/json', content: 'not json at all' },
            { key: 'sha256:0000', title: 'Takes a derived key', content_type: 'text/plain', content: 'x' },
            { key: 'fine', title: 'Fine', content_type: 'application/json', content: '{"ok": true}' },
          ],
          urls: [{ url: `${base}/guide.md` }, { url: `${base}/bad%ZZname.md` }, { url: `${base}/nul%00name.md` }],
        }),
        'application/json',
      );
      assert.equal(reply.status, 202, reply.text);
      const done = await finished(reply.body.id);
      assert.equal(done.state, 'completed', JSON.stringify(done));
      const all = await outcomes(reply.body.id);
      assert.deepEqual(
        all.map((o) => [o.status, o.reason]),
        [
          ['failed', 'invalid-item'],
          ['failed', 'invalid-item'],
          ['created', null],
          ['created', null],
          ['created', null],
          ['created', null],
        ],
      );
      assert.match(all[0]!.message!, /JSON/);
      assert.equal(all[3]!.key, `url:${base}/guide.md`);
      const names = await Promise.all(
        all.slice(3).map(async (o) => (await admin.get(`/artifacts/${o.artifact_id}`)).body.context.file.name),
      );
      assert.deepEqual(names, ['guide.md', 'bad%ZZname.md', 'nul name.md']);
      // The same URL again: skipped under its url: key.
      const again = await send(admin, ws, JSON.stringify({ urls: [{ url: `${base}/guide.md` }] }), 'application/json');
      assert.deepEqual((await finished(again.body.id)).counts, { done: 1, created: 0, skipped: 1, failed: 0, remaining: 0 });
    } finally {
      files.close();
    }
  });

  it('refuses what is not an import, and changes nothing', async () => {
    const ws = await workspace();
    const bob = await platform.newUser();
    const cases: [Reply, number, string][] = [
      [await send(admin, ws, 'a,b', 'text/csv'), 415, 'unsupported-media-type'],
      [await send(admin, ws, '{', 'application/json'), 400, 'malformed-json'],
      [await send(admin, ws, '{"documents": []}', 'application/json'), 400, 'validation-error'],
      [await send(admin, ws, '[]', 'application/json'), 400, 'validation-error'],
      [await send(admin, ws, JSON.stringify(docs(201, 'too-many')), 'application/json'), 400, 'validation-error'],
      [await send(admin, ws, new FormData()), 400, 'validation-error'],
      [await send(bob, ws, JSON.stringify(docs(1, 'bob')), 'application/json'), 404, 'not-found'],
      [await send(admin, '0190c1d2-7a4b-7c3d-8e9f-0a1b2c3d4e5f', JSON.stringify(docs(1, 'nowhere')), 'application/json'), 404, 'not-found'],
    ];
    for (const [reply, status, type] of cases) {
      assert.equal(reply.status, status, reply.text);
      assert.ok(String(reply.body?.type).endsWith(type), reply.text);
    }
    // A reader of the workspace may not import into it.
    assert.equal((await admin.post(`/workspaces/${ws}/shares`, { person_id: bob.userId, flags: 'R' })).status, 200);
    const reader = await send(bob, ws, JSON.stringify(docs(1, 'bob')), 'application/json');
    assert.equal(reader.status, 403, reader.text);
    assert.equal((await admin.get(`/workspaces/${ws}/imports`)).body.items.length, 0);
    assert.equal((await admin.get(`/artifacts?collection_id=${ws}`)).body.items.length, 0);
    // Someone else's import is invisible.
    const mine = await send(admin, await workspace(admin, 'private'), JSON.stringify(docs(1, 'private')), 'application/json');
    assert.equal((await bob.get(`/imports/${mine.body.id}`)).status, 404);
  });

  it('imports through the MCP tools import_artifacts and get_import, with the official SDK client', async () => {
    const ws = await workspace();
    const client = new Client({ name: 'import-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${platform.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${admin.token}` } },
      }),
    );
    try {
      const started = await client.callTool({
        name: 'import_artifacts',
        arguments: { workspace_id: ws, items: docs(4, 'gamma'), urls: [{ url: 'http://127.0.0.1:1/private.md' }] },
      });
      assert.notEqual(started.isError, true, JSON.stringify(started));
      const id = (started.structuredContent as { id: string }).id;
      const done = await eventually(
        async () => {
          const r = await client.callTool({ name: 'get_import', arguments: { import_id: id } });
          const body = r.structuredContent as { state: string } | undefined;
          return body?.state === 'completed'
            ? (body as unknown as { counts: { created: number; failed: number }; failed_items: { reason: string }[] })
            : null;
        },
        30_000,
        'the import completed, seen through get_import',
      );
      assert.equal(done.counts.created, 4);
      // A private address the outbound guard refuses: reported, never fetched.
      assert.deepEqual(
        done.failed_items.map((f) => f.reason),
        ['unreachable'],
      );
      const refused = await client.callTool({ name: 'get_import', arguments: { import_id: '0190c1d2-7a4b-7c3d-8e9f-0a1b2c3d4e5f' } });
      assert.equal(refused.isError, true);
    } finally {
      await client.close();
    }
  });
});
