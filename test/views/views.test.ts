// The view content type (issue #36): a saved filter over workspaces and collections whose results
// are read over REST and MCP and followed live, against the real engines.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { viewStreamTiming } from '../../src/api/routes/views.js';
import { commitInto } from '../helpers/commit.js';
import { Api, eventually } from '../helpers/http.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

const viewType = 'application/vnd.platform.view+json';
let platform: TestPlatform;
let alice: Api & { userId: string };
let bob: Api & { userId: string };
let ws: string;
let other: string;

before(async () => {
  platform = await startPlatform();
  alice = await platform.newUser();
  bob = await platform.newUser();
  ws = (await alice.post('/workspaces', { name: 'Research' })).body.id;
  other = (await alice.post('/workspaces', { name: 'Archive room' })).body.id;
});
after(() => platform?.close());

async function draft(api: Api, collectionId: string, title: string, fields: { type?: string; content?: string; context?: object } = {}) {
  const reply = await api.post('/artifacts', {
    title,
    content_type: fields.type ?? 'text/markdown',
    content: fields.content ?? `# ${title}`,
    context: fields.context ?? {},
    collection_id: collectionId,
  });
  assert.equal(reply.status, 201, reply.text);
  return reply.body.id as string;
}

async function view(api: Api, collectionId: string, content: object, title = 'A view') {
  const reply = await api.post('/artifacts', {
    title,
    content_type: viewType,
    content: JSON.stringify(content),
    collection_id: collectionId,
  });
  assert.equal(reply.status, 201, reply.text);
  return reply.body.id as string;
}

async function results(api: Api, id: string) {
  const reply = await api.get(`/artifacts/${id}/results`);
  assert.equal(
    reply.status,
    200,
    reply.status === 500 ? platform.logs.filter((l) => l.includes(reply.body.request_id)).join('\n') : reply.text,
  );
  return reply.body as {
    items: { id: string; title: string; tags: string[]; score?: number; container: { id: string } }[];
    more: boolean;
    sort: string;
    sources: { id: string; readable: boolean; name?: string }[];
    digest: string;
    view: { revision: number };
  };
}
const titles = (r: { items: { title: string }[] }) => r.items.map((i) => i.title);

describe('view content', () => {
  const bad: [string, object, string][] = [
    ['no sources', { sources: undefined }, 'content.sources'],
    ['no workspace', { sources: { workspaces: [] } }, 'content.sources.workspaces'],
    ['a workspace id that is no UUID', { sources: { workspaces: ['../x'] } }, 'content.sources.workspaces.0'],
    ['an operator as a context field', { filter: { context: { $where: 'sleep(1000)' } } }, 'content.filter.context.$where'],
    ['a dotted context field', { filter: { context: { 'owner.role': 'admin' } } }, 'content.filter.context.owner.role'],
    ['an operator object as a context value', { filter: { context: { status: { $ne: 'x' } } } }, 'content.filter.context.status'],
    ['a regular expression operator as a value', { filter: { context: { status: { $regex: '.*' } } } }, 'content.filter.context.status'],
    ['tags as a context field', { filter: { context: { tags: 'a' } } }, 'content.filter.context.tags'],
    ['a tag with a quote', { filter: { tags: ['a"b'] } }, 'content.filter.tags.0'],
    ['a content type with parameters', { filter: { content_types: ['text/plain; charset=utf-8'] } }, 'content.filter.content_types.0'],
    ['relevance without a query', { sort: 'relevance' }, 'content.sort'],
    ['an unknown sort', { sort: 'random' }, 'content.sort'],
    ['a limit over 200', { limit: 201 }, 'content.limit'],
    ['an unknown field', { filter: { where: 'x' } }, 'content.filter'],
  ];
  for (const [what, patch, field] of bad) {
    it(`refuses ${what} with a 400 naming ${field}, and stores nothing`, async () => {
      const content = { sources: { workspaces: [ws] }, ...(patch as object) };
      const reply = await alice.post('/artifacts', {
        title: 'bad',
        content_type: viewType,
        content: JSON.stringify(content),
        collection_id: ws,
      });
      assert.equal(reply.status, 400, reply.text);
      assert.equal(reply.body.type, 'urn:platform:problem:validation-error');
      assert.ok(
        reply.body.invalid_params.some((p: { name: string }) => p.name === field),
        `${field} in ${JSON.stringify(reply.body.invalid_params)}`,
      );
    });
  }

  it('refuses a __proto__ context field (an own key of the JSON) instead of dropping it', async () => {
    const content = `{"sources":{"workspaces":["${ws}"]},"filter":{"context":{"__proto__":{"$ne":null}}}}`;
    const reply = await alice.post('/artifacts', { title: 'proto', content_type: viewType, content, collection_id: ws });
    assert.equal(reply.status, 400, reply.text);
    assert.equal(reply.body.invalid_params[0].name, 'content.filter.context.__proto__');
    const listed = await alice.get(`/artifacts?collection_id=${ws}&content_type=${encodeURIComponent(viewType)}`);
    assert.equal(listed.body.items.filter((a: { title: string }) => a.title === 'proto').length, 0, 'no view was stored');
  });

  it('stores the defaults it applies, and refuses an edit into an invalid view, leaving the view as it was', async () => {
    const id = await view(alice, ws, { sources: { workspaces: [ws] } });
    const opened = await alice.post(`/artifacts/${id}/open`, {});
    assert.equal(opened.status, 200, opened.text);
    assert.equal(opened.body.type.ui.viewer, 'platform/view', "the console renders it with the view's own page");
    const stored = await alice.get(`/artifacts/${id}`);
    assert.deepEqual(JSON.parse(stored.body.content), { sources: { workspaces: [ws] }, filter: {}, limit: 50, sort: 'updated_desc' });
    const edit = await alice.patch(`/artifacts/${id}`, {
      content: JSON.stringify({ sources: { workspaces: [ws] }, filter: { context: { 'a.$b': 1 } } }),
    });
    assert.equal(edit.status, 400, edit.text);
    assert.equal((await alice.get(`/artifacts/${id}`)).body.revision, stored.body.revision);
  });
});

describe('view results', () => {
  let ids: Record<string, string>;
  before(async () => {
    ids = {};
    const add = async (title: string, fields: Parameters<typeof draft>[3] = {}, where = ws) =>
      (ids[title] = await draft(alice, where, title, fields));
    await add('Alpha notes', { context: { tags: ['alpha', 'beta'], status: 'open', priority: 2 } });
    await add('Beta plan', { type: 'text/plain', context: { tags: ['beta'], status: 'done', priority: 1, urgent: true } });
    await add('Gamma chart', { type: 'image/svg+xml', content: '<svg xmlns="http://www.w3.org/2000/svg"/>', context: { tags: 'alpha' } });
    await add('Delta decoy', { context: { tags: ['alphabet', 'x"alpha'], status: 'open', priority: '2' } });
    await add('Epsilon elsewhere', { context: { tags: ['alpha'], status: 'open' } }, other);
    await add('Zeta archived', { context: { tags: ['alpha'] } });
    const archived = await alice.post(`/artifacts/${ids['Zeta archived']}/manage`, { action: 'archive' });
    assert.equal(archived.status, 200, archived.text);
  });

  it('filters by content type, exact or type/*', async () => {
    const exact = await view(alice, ws, { sources: { workspaces: [ws] }, filter: { content_types: ['text/plain'] } });
    assert.deepEqual(titles(await results(alice, exact)), ['Beta plan']);
    const pattern = await view(alice, ws, {
      sources: { workspaces: [ws] },
      filter: { content_types: ['image/*', 'TEXT/PLAIN'] },
      sort: 'title_asc',
    });
    assert.deepEqual(titles(await results(alice, pattern)), ['Beta plan', 'Gamma chart']);
  });

  it('filters by tags (every one), never matching a tag that only resembles one, nor archived drafts', async () => {
    const one = await view(alice, ws, { sources: { workspaces: [ws] }, filter: { tags: ['alpha'] }, sort: 'title_asc' });
    const r = await results(alice, one);
    assert.deepEqual(titles(r), ['Alpha notes', 'Gamma chart']);
    assert.deepEqual(r.items[0]!.tags, ['alpha', 'beta']);
    const both = await view(alice, ws, { sources: { workspaces: [ws] }, filter: { tags: ['alpha', 'beta'] } });
    assert.deepEqual(titles(await results(alice, both)), ['Alpha notes']);
  });

  it('filters by context fields: strings, numbers and booleans by type and value', async () => {
    const open = await view(alice, ws, { sources: { workspaces: [ws] }, filter: { context: { status: 'open' } }, sort: 'title_asc' });
    assert.deepEqual(titles(await results(alice, open)), ['Alpha notes', 'Delta decoy']);
    const two = await view(alice, ws, { sources: { workspaces: [ws] }, filter: { context: { priority: 2 } } });
    assert.deepEqual(titles(await results(alice, two)), ['Alpha notes'], 'the number 2, not the string "2"');
    const urgent = await view(alice, ws, { sources: { workspaces: [ws] }, filter: { context: { urgent: true, status: 'done' } } });
    assert.deepEqual(titles(await results(alice, urgent)), ['Beta plan']);
  });

  it('searches with a query, by relevance, within its sources and filter', async () => {
    await draft(alice, ws, 'Photosynthesis primer', { content: 'Photosynthesis turns light into chemical energy in chloroplasts.' });
    await draft(alice, other, 'Photosynthesis elsewhere', { content: 'Photosynthesis in another workspace.' });
    const id = await view(alice, ws, { sources: { workspaces: [ws] }, filter: { query: 'photosynthesis chloroplasts' } });
    const r = await eventually(async () => {
      const got = await results(alice, id);
      return got.items.length > 0 && got;
    });
    assert.equal(r.sort, 'relevance', 'relevance is the default with a query');
    assert.equal(r.items[0]!.title, 'Photosynthesis primer');
    assert.ok(typeof r.items[0]!.score === 'number');
    assert.ok(!titles(r).includes('Photosynthesis elsewhere'), 'only the sources are searched');
    const filtered = await view(alice, ws, { sources: { workspaces: [ws] }, filter: { query: 'photosynthesis', tags: ['alpha'] } });
    assert.deepEqual(titles(await results(alice, filtered)), [], 'the rest of the filter applies to the hits');
  });

  it('sorts by update, creation, title and position, and cuts at the limit saying there is more', async () => {
    const w = (await alice.post('/workspaces', { name: 'Sorting' })).body.id;
    const a = await draft(alice, w, 'b-first');
    await draft(alice, w, 'c-second');
    const c = await draft(alice, w, 'a-third');
    const sources = { workspaces: [w] };
    const created = await view(alice, ws, { sources, sort: 'created_desc' });
    assert.deepEqual(titles(await results(alice, created)), ['a-third', 'c-second', 'b-first']);
    const byTitle = await view(alice, ws, { sources, sort: 'title_asc' });
    assert.deepEqual(titles(await results(alice, byTitle)), ['a-third', 'b-first', 'c-second']);
    assert.equal((await alice.patch(`/artifacts/${a}`, { content: '# touched' })).status, 200);
    const updated = await view(alice, ws, { sources, sort: 'updated_desc' });
    assert.deepEqual(titles(await results(alice, updated)), ['b-first', 'a-third', 'c-second']);
    assert.equal((await alice.post(`/artifacts/${c}/move`, { after_id: null })).status, 200);
    const position = await view(alice, ws, { sources, sort: 'position' });
    assert.deepEqual(titles(await results(alice, position)), ['a-third', 'b-first', 'c-second']);
    const limited = await view(alice, ws, { sources, sort: 'title_asc', limit: 2 });
    const cut = await results(alice, limited);
    assert.deepEqual(titles(cut), ['a-third', 'b-first']);
    assert.equal(cut.more, true);
    assert.equal((await results(alice, byTitle)).more, false);
  });

  it('merges several sources, a collection included', async () => {
    const collection = (await alice.post('/collections', { name: 'Published' })).body.id;
    const id = await view(alice, ws, {
      sources: { workspaces: [ws, other], collections: [collection] },
      filter: { tags: ['alpha'] },
      sort: 'title_asc',
    });
    const r = await results(alice, id);
    assert.deepEqual(titles(r), ['Alpha notes', 'Epsilon elsewhere', 'Gamma chart']);
    assert.deepEqual(
      r.sources.map((s) => [s.id, s.readable, s.name]),
      [
        [ws, true, 'Research'],
        [other, true, 'Archive room'],
        [collection, true, 'Published'],
      ],
    );
  });

  it("answers a view's results to a reader of the view, never widening access", async () => {
    const bobs = (await bob.post('/workspaces', { name: 'Bob desk' })).body.id;
    await draft(bob, bobs, 'Bob alpha', { context: { tags: ['alpha'] } });
    // Bob's view names Alice's workspace, which he cannot read: reported, not listed.
    const id = await view(bob, bobs, { sources: { workspaces: [bobs, ws] }, filter: { tags: ['alpha'] } });
    const r = await results(bob, id);
    assert.deepEqual(titles(r), ['Bob alpha']);
    assert.deepEqual(
      r.sources.map((s) => [s.id, s.readable, s.name]),
      [
        [bobs, true, 'Bob desk'],
        [ws, false, undefined],
      ],
    );
    // Once Alice shares it with him (read), his view shows it.
    assert.equal((await alice.post(`/workspaces/${ws}/shares`, { person_id: bob.userId, flags: 'R' })).status, 200);
    const shared = await results(bob, id);
    assert.deepEqual(titles(shared).sort(), ['Alpha notes', 'Bob alpha', 'Gamma chart']);
    assert.ok(shared.sources.every((s) => s.readable));
    // Alice, through the same view, does not see into Bob's workspace.
    assert.equal((await alice.get(`/artifacts/${id}/results`)).status, 404, "Bob's view is in his workspace: Alice cannot read it");
  });

  it('answers 404 for a view the caller cannot read, 409 for an artifact that is no view, and needs search:read for a query', async () => {
    const hidden = await view(alice, other, { sources: { workspaces: [other] } });
    const carol = await platform.newUser();
    assert.equal((await carol.get(`/artifacts/${hidden}/results`)).status, 404);
    const notView = await alice.get(`/artifacts/${ids['Alpha notes']}/results`);
    assert.equal(notView.status, 409, notView.text);
    assert.equal(notView.body.type, 'urn:platform:problem:not-a-view');
    assert.equal((await alice.get('/artifacts/not-a-uuid/results')).status, 400);
    const key = await alice.post('/api-keys', { name: 'read only', scopes: ['artifact:read'] });
    assert.equal(key.status, 201, key.text);
    const reader = alice.withToken(key.body.key);
    const plain = await view(alice, ws, { sources: { workspaces: [ws] } });
    assert.equal((await reader.get(`/artifacts/${plain}/results`)).status, 200);
    const queried = await view(alice, ws, { sources: { workspaces: [ws] }, filter: { query: 'alpha' } });
    const refused = await reader.get(`/artifacts/${queried}/results`);
    assert.equal(refused.status, 403, refused.text);

    // A key limited to some content types reads only those through a view too.
    const typed = await alice.post('/api-keys', {
      name: 'plain text only',
      scopes: [`resource:${viewType}:read`, 'resource:text/plain:read'],
    });
    assert.equal(typed.status, 201, typed.text);
    const limited = await results(alice.withToken(typed.body.key), plain);
    const types = new Set(limited.items.map((i) => (i as unknown as { content_type: string }).content_type));
    assert.deepEqual([...types].sort(), [viewType, 'text/plain'], 'the views in the workspace, and plain text');
    assert.ok(titles(limited).includes('Beta plan') && !titles(limited).includes('Alpha notes'));
    assert.equal(
      (await alice.withToken(typed.body.key).get(`/artifacts/${ids['Alpha notes']}/results`)).status,
      404,
      'nor a type it cannot read',
    );
  });

  it('answers 304 to If-None-Match with the current digest, and the new results once they change', async () => {
    const w = (await alice.post('/workspaces', { name: 'Polling' })).body.id;
    const id = await view(alice, ws, { sources: { workspaces: [w] } });
    const first = await alice.get(`/artifacts/${id}/results`);
    const etag = first.headers.get('etag')!;
    assert.equal(etag, `"${first.body.digest}"`);
    assert.equal((await alice.get(`/artifacts/${id}/results`, { 'if-none-match': etag })).status, 304);
    await draft(alice, w, 'New');
    const changed = await alice.get(`/artifacts/${id}/results`, { 'if-none-match': etag });
    assert.equal(changed.status, 200);
    assert.deepEqual(titles(changed.body), ['New']);
  });

  it('answers get_view_results to the official MCP client, and a tool error for what is no view', async () => {
    const id = await view(alice, ws, { sources: { workspaces: [ws] }, filter: { tags: ['alpha'] }, sort: 'title_asc' });
    const client = new Client({ name: 'views-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${platform.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${alice.token!}` } },
      }),
    );
    try {
      const tool = (await client.listTools()).tools.find((t) => t.name === 'get_view_results');
      assert.equal(tool?.annotations?.readOnlyHint, true);
      const got = await client.callTool({ name: 'get_view_results', arguments: { view_id: id } });
      assert.ok(!got.isError, JSON.stringify(got.content));
      const data = got.structuredContent as { items: { title: string }[]; digest: string };
      assert.deepEqual(titles(data), ['Alpha notes', 'Gamma chart']);
      assert.equal(data.digest, (await results(alice, id)).digest, 'REST and MCP send the same results');
      const wrong = await client.callTool({ name: 'get_view_results', arguments: { view_id: ids['Alpha notes']! } });
      assert.equal(wrong.isError, true);
      const malformed = await client.callTool({ name: 'get_view_results', arguments: { view_id: 'x' } });
      assert.equal(malformed.isError, true);
    } finally {
      await client.close();
    }
  });
});

/** A Server-Sent Events reader over fetch (EventSource cannot send a bearer token). */
async function openStream(api: Api, path: string, headers: Record<string, string> = {}) {
  const aborter = new AbortController();
  const res = await fetch(api.url + path, { headers: { authorization: `Bearer ${api.token}`, ...headers }, signal: aborter.signal });
  const reader = res.ok ? res.body!.getReader() : null;
  const decoder = new TextDecoder();
  let buffer = '';
  return {
    res,
    close: () => aborter.abort(),
    /** The next message with data, within `ms`. */
    async next(ms = 20_000): Promise<{ id: string; event: string; data: Record<string, unknown> }> {
      const deadline = Date.now() + ms;
      for (;;) {
        const end = buffer.indexOf('\n\n');
        if (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const fields: Record<string, string> = {};
          for (const line of block.split('\n')) {
            const m = /^(id|event|data): ?(.*)$/.exec(line);
            if (m) fields[m[1]!] = m[2]!;
          }
          if (fields.data !== undefined) return { id: fields.id ?? '', event: fields.event ?? 'message', data: JSON.parse(fields.data) };
          continue;
        }
        const left = deadline - Date.now();
        if (left <= 0) throw new Error('no message in time');
        const read = await Promise.race([reader!.read(), new Promise<null>((r) => setTimeout(() => r(null), left))]);
        if (read === null) throw new Error('no message in time');
        if (read.done) throw new Error('the stream ended');
        buffer += decoder.decode(read.value, { stream: true });
      }
    },
  };
}

describe('view results stream', () => {
  it('sends the results, then new ones when a matching artifact is created and when the view is edited', async () => {
    const w = (await alice.post('/workspaces', { name: 'Live' })).body.id;
    await draft(alice, w, 'Existing', { context: { tags: ['live'] } });
    const id = await view(alice, w, { sources: { workspaces: [w] }, filter: { tags: ['live'] } });
    const stream = await openStream(alice, `/artifacts/${id}/results/stream`);
    try {
      assert.equal(stream.res.status, 200);
      assert.match(stream.res.headers.get('content-type') ?? '', /^text\/event-stream/);
      const first = await stream.next();
      assert.equal(first.event, 'results');
      assert.deepEqual(titles(first.data as never), ['Existing']);
      assert.equal(first.id, first.data.digest);
      // A write that does not match changes nothing; the matching one that follows is the next message.
      await draft(alice, w, 'Untagged');
      await draft(alice, w, 'Arrived', { context: { tags: ['live'] } });
      const second = await stream.next();
      assert.deepEqual(titles(second.data as never), ['Arrived', 'Existing']);
      // The view edited: the results follow its new filter.
      const edit = await alice.patch(`/artifacts/${id}`, {
        content: JSON.stringify({ sources: { workspaces: [w] }, filter: { tags: ['live'] }, sort: 'title_asc', limit: 1 }),
      });
      assert.equal(edit.status, 200, edit.text);
      const third = await stream.next();
      assert.deepEqual(titles(third.data as never), ['Arrived']);
      assert.equal(third.data.more, true);
      // Deleted: the stream says so and ends.
      assert.equal((await alice.post(`/artifacts/${id}/manage`, { action: 'delete' })).status, 200);
      const gone = await stream.next();
      assert.equal(gone.event, 'error');
      assert.equal(gone.data.status, 404);
    } finally {
      stream.close();
    }
  });

  it('skips results the client already has (Last-Event-ID), and refuses what GET would refuse before streaming', async () => {
    const w = (await alice.post('/workspaces', { name: 'Resume' })).body.id;
    const id = await view(alice, ws, { sources: { workspaces: [w] } });
    const { digest } = await results(alice, id);
    const stream = await openStream(alice, `/artifacts/${id}/results/stream`, { 'last-event-id': digest });
    try {
      await draft(alice, w, 'After resume');
      const next = await stream.next();
      assert.notEqual(next.id, digest);
      assert.deepEqual(titles(next.data as never), ['After resume'], 'the first message is the change, not the results already held');
    } finally {
      stream.close();
    }
    const carol = await platform.newUser();
    const refused = await openStream(carol, `/artifacts/${id}/results/stream`);
    assert.equal(refused.res.status, 404);
    const badId = await openStream(alice, `/artifacts/${id}/results/stream`, { 'last-event-id': 'not a digest!' });
    assert.equal(badId.res.status, 400);
  });

  it('follows a collection source too: a commit into it shows within seconds (collections record no events: their newest artifact is the mark)', async () => {
    const collection = (await alice.post('/collections', { name: 'Shelf' })).body.id;
    const id = await view(alice, ws, { sources: { workspaces: [ws], collections: [collection] }, filter: { tags: ['shelved'] } });
    const stream = await openStream(alice, `/artifacts/${id}/results/stream`);
    try {
      assert.deepEqual(titles((await stream.next()).data as never), []);
      const [committed] = await commitInto(alice, collection, [{ title: 'Committed', context: { tags: ['shelved'] } }]);
      const next = await stream.next(viewStreamTiming.lookMs + 5000); // far inside the idle refresh
      const items = (next.data as { items: { id: string; state: string; container: { id: string } }[] }).items;
      assert.deepEqual(
        items.map((i) => [i.id, i.state, i.container.id]),
        [[committed, 'committed', collection]],
      );
    } finally {
      stream.close();
    }
  });
});
