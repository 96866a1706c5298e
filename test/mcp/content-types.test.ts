// Content-type servers (SPEC §2.10, §4.6) with the project's own note server (examples/note-type-server),
// a real MCP server over stdio, and the built-in persona server (§4.2).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { platformToolsetId } from '../../src/operations/builtin-servers.js';
import { eventually, type Api } from '../helpers/http.js';
import { noteTypeServer, registerServer } from '../helpers/mcp-servers.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

const noteType = 'application/vnd.example.note+json';
let platform: TestPlatform;
let alice: Api & { userId: string };
let ws: string;
let serverId: string;

before(async () => {
  platform = await startPlatform({ ALLOW_STDIO_MCP_SERVERS: 'true' }, { worker: true });
  alice = await platform.newUser();
  ws = (await alice.post('/workspaces', { name: 'notes' })).body.id;
  serverId = await registerServer(alice, ws, noteTypeServer, 'note types');
});
after(() => platform?.close());

const note = (body: string, tags: string[] = []) => JSON.stringify({ heading: 'Release plan', body, tags });

describe('content-type servers', () => {
  it('registers the type.json a server ships, as soon as the server is registered', async () => {
    const entry = await eventually(async () => {
      const doc = await platform.services.mcpCatalog.get(serverId);
      return doc?.content_types.length ? doc : null;
    });
    assert.equal(entry.content_types[0]!.mime, noteType);
    assert.deepEqual(entry.content_types[0]!.inherits, ['application/json', 'text/markdown']);
    const listed = (await alice.get(`/mcp/workspaces/${ws}/servers`)).body.servers[0];
    assert.equal(listed.content_types[0].ui.label, 'Note');
    assert.deepEqual(listed.tools.map((t: { name: string }) => t.name).sort(), ['describe_note', 'extract_text', 'on_create', 'summarize']);
    assert.equal(listed.tools[0].icon, '🗒️', 'the item icon wins over the server and generic icons');
  });

  it('calls on_create when an artifact of the type is created, and merges the context it returns', async () => {
    const created = await alice.post('/artifacts', {
      title: 'plan',
      content_type: noteType,
      content: note('Ship the **note type** by Friday. Then rest.', ['Release', 'q3', 'release']),
      collection_id: ws,
    });
    assert.equal(created.status, 201, created.text);
    const enriched = await eventually(async () => {
      const a = await alice.get(`/artifacts/${created.body.id}`);
      return a.body.context.word_count !== undefined && a.body;
    });
    assert.equal(enriched.context.word_count, 8);
    assert.deepEqual(enriched.context.tags, ['q3', 'release']);
    // The enrichment is a revision of its own (issue #30: a racing write could drop it otherwise), made for the creator;
    // on_create runs before the write (issue #37), so the create answers with it.
    assert.equal(enriched.revision, 2);
    assert.equal(created.body.revision, 2);
    assert.equal(created.body.context.word_count, 8);
    assert.equal(enriched.provenance.source.lifecycle, 'on_create');
    assert.equal(enriched.provenance.updated_by, created.body.provenance.created_by);
    // The lifecycle call is a workflow of its own, findable by server and tool (visibility lags a little).
    await eventually(async () => {
      for await (const run of platform.services.temporal.workflow.list({
        query: `ArtifactId = "${serverId}" AND McpTool = "on_create" AND RunKind = "type_lifecycle"`,
      })) {
        if (run.status.name === 'COMPLETED') return true;
      }
      return false;
    });
  });

  it('skips on_open, which the server does not implement, and answers with the type as rendering hints', async () => {
    const created = await alice.post('/artifacts', { title: 'open me', content_type: noteType, content: note('Open.'), collection_id: ws });
    const opened = await alice.post(`/artifacts/${created.body.id}/open`, {});
    assert.equal(opened.status, 200, opened.text);
    assert.deepEqual(opened.body.on_open, { status: 'skipped' });
    assert.equal(opened.body.type.ui.viewer, 'note');
    assert.equal(opened.body.artifact.id, created.body.id);
  });

  it("answers a platform-owned type with the platform's own definition, its viewer the console", async () => {
    const created = await alice.post('/artifacts', {
      title: 'laptop',
      content_type: 'application/vnd.platform.host+json',
      content: '{}',
      collection_id: ws,
    });
    assert.equal(created.status, 201, created.text);
    const opened = await alice.post(`/artifacts/${created.body.id}/open`, {});
    assert.equal(opened.status, 200, opened.text);
    assert.equal(opened.body.type.mime, 'application/vnd.platform.host+json');
    assert.equal(opened.body.type.ui.label, 'Host');
    assert.equal(opened.body.type.ui.viewer, 'platform/host');
    assert.equal(opened.body.viewer, null, 'the console renders it: no server serves it');
  });

  it('indexes the text extract_text returns for a committed artifact', async () => {
    const draft = await alice.post('/artifacts', {
      title: 'linked',
      content_type: noteType,
      content: note('See [the handbook](https://example.test/zqxjv-handbook) for `details`.', ['docs']),
      collection_id: ws,
    });
    const col = (await alice.post('/collections', { name: 'published' })).body.id;
    const req = await alice.post(`/workspaces/${ws}/commits`, { collection_id: col, message: 'publish', artifact_ids: [draft.body.id] });
    assert.equal(req.status, 202, req.text);
    await eventually(async () => (await alice.get(`/commits/${req.body.id}`)).body.state === 'awaiting_approval');
    assert.equal((await alice.post(`/commits/${req.body.id}/approve`, {})).status, 200);
    const commit = await eventually(async () => {
      const c = (await alice.get(`/commits/${req.body.id}`)).body;
      return c.state === 'committed' && c.extract_text && c;
    }, 60_000);
    assert.equal(commit.extract_text.status, 'done', JSON.stringify(commit.extract_text));
    assert.equal(commit.extract_text.extracted, 1);
    const [committed] = (await alice.get(`/artifacts?collection_id=${col}`)).body.items;
    const stored = await platform.services.artifacts.get(committed.id);
    assert.match(stored!.search_text!.text, /^Release plan\n\nSee the handbook for details\./);
    assert.ok(!stored!.search_text!.text.includes('zqxjv'), 'the link target is markup, not text');
    // Search reads the extracted text: the collection version is found by its words, not by its markup.
    const hits = await eventually(async () => {
      const r = await alice.post('/artifacts/search', { query: 'handbook details', limit: 10 });
      return r.body.results.some((h: { id: string }) => h.id === committed.id) && r.body.results;
    });
    assert.ok(hits.length > 0);
  });
});

describe('built-in persona servers', () => {
  it('serves the platform toolset at its own artifact id, and calls its tools for the caller', async () => {
    const artifact = await alice.get(`/artifacts/${platformToolsetId}`);
    assert.equal(artifact.status, 200, artifact.text);
    assert.equal(artifact.body.content_type, 'application/vnd.platform.mcp-server+json');
    const r = await alice.post(`/artifacts/${platformToolsetId}/invoke`, { name: 'browse_workspaces', arguments: {} });
    assert.equal(r.status, 200, r.text);
    assert.ok(r.body.result.structuredContent.items.some((w: { id: string }) => w.id === ws));
    const missing = await alice.post(`/artifacts/${platformToolsetId}/invoke`, { name: 'nope', arguments: {} });
    assert.equal(missing.body.result.isError, true);
    const invalid = await alice.post(`/artifacts/${platformToolsetId}/invoke`, { name: 'search', arguments: { query: 5 } });
    assert.equal(invalid.body.result.isError, true);
    const bob = await platform.newUser();
    const theirs = await bob.post(`/artifacts/${platformToolsetId}/invoke`, { name: 'browse_workspaces', arguments: {} });
    assert.ok(
      !theirs.body.result.structuredContent.items.some((w: { id: string }) => w.id === ws),
      "another person's call sees only their own workspaces",
    );
  });
});
