// Optimistic concurrency for clients (issue #17): GET sends the revision as an ETag, PATCH and DELETE
// honour If-Match (412 problem+json with the current revision), MCP update_artifact takes the
// revision it read; a draft's revisions are its history.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Api } from '../helpers/http.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

let platform: TestPlatform;
let alice: Api & { userId: string };
let ws: string;

before(async () => {
  platform = await startPlatform({}, { worker: false });
  alice = await platform.newUser();
  ws = (await alice.post('/workspaces', { name: 'etags' })).body.id;
});
after(() => platform?.close());

async function draft(title = 'Draft') {
  const r = await alice.post('/artifacts', { title, content_type: 'text/plain', content: 'x', collection_id: ws });
  assert.equal(r.status, 201, r.text);
  assert.equal(r.headers.get('etag'), '"1"');
  return r.body.id as string;
}

function assertMismatch(r: { status: number; text: string; body: any; headers: Headers }, current: number) {
  assert.equal(r.status, 412, r.text);
  assert.match(r.headers.get('content-type') ?? '', /application\/problem\+json/);
  assert.equal(r.body.type, 'urn:platform:problem:revision-mismatch');
  assert.equal(r.body.current_revision, current);
  assert.equal(r.headers.get('etag'), `"${current}"`);
}

describe('ETag and If-Match', () => {
  it('GET sends the revision as a strong ETag; PATCH with a matching If-Match applies and sends the next', async () => {
    const id = await draft();
    const got = await alice.get(`/artifacts/${id}`);
    assert.equal(got.headers.get('etag'), '"1"');
    const patched = await alice.request('PATCH', `/artifacts/${id}`, { body: { title: 'second' }, headers: { 'if-match': '"1"' } });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.body.revision, 2);
    assert.equal(patched.headers.get('etag'), '"2"');
    assert.equal((await alice.get(`/artifacts/${id}`)).headers.get('etag'), '"2"');
  });

  it('PATCH with a stale If-Match is 412 with the current revision, and changes nothing', async () => {
    const id = await draft();
    assert.equal((await alice.patch(`/artifacts/${id}`, { title: 'moved on' })).status, 200);
    assertMismatch(await alice.request('PATCH', `/artifacts/${id}`, { body: { title: 'lost update' }, headers: { 'if-match': '"1"' } }), 2);
    assertMismatch(
      await alice.request('PATCH', `/artifacts/${id}`, { body: { title: 'lost update' }, headers: { 'if-match': 'not a tag' } }),
      2,
    );
    const doc = (await alice.get(`/artifacts/${id}`)).body;
    assert.equal(doc.title, 'moved on');
    assert.equal(doc.revision, 2);
  });

  it('takes W/"n", a list of tags, and * (any revision)', async () => {
    const id = await draft();
    assert.equal(
      (await alice.request('PATCH', `/artifacts/${id}`, { body: { title: 'a' }, headers: { 'if-match': 'W/"1"' } })).status,
      200,
    );
    assert.equal(
      (await alice.request('PATCH', `/artifacts/${id}`, { body: { title: 'b' }, headers: { 'if-match': '"7", "2"' } })).status,
      200,
    );
    assert.equal((await alice.request('PATCH', `/artifacts/${id}`, { body: { title: 'c' }, headers: { 'if-match': '*' } })).status, 200);
    assert.equal((await alice.get(`/artifacts/${id}`)).body.revision, 4);
  });

  it('of two edits at the same revision, one applies and the other is 412', async () => {
    const id = await draft();
    const replies = await Promise.all(
      ['one', 'two', 'three', 'four'].map((title) =>
        alice.request('PATCH', `/artifacts/${id}`, { body: { title }, headers: { 'if-match': '"1"' } }),
      ),
    );
    assert.deepEqual(replies.map((r) => r.status).sort(), [200, 412, 412, 412]);
    const winner = replies.find((r) => r.status === 200)!;
    assert.equal(winner.body.revision, 2);
    const doc = (await alice.get(`/artifacts/${id}`)).body;
    assert.equal(doc.title, winner.body.title);
    assert.equal(doc.revision, 2);
  });

  it('DELETE honours If-Match', async () => {
    const id = await draft();
    assert.equal((await alice.patch(`/artifacts/${id}`, { title: 'moved on' })).status, 200);
    assertMismatch(await alice.request('DELETE', `/artifacts/${id}`, { headers: { 'if-match': '"1"' } }), 2);
    assert.equal((await alice.get(`/artifacts/${id}`)).status, 200);
    assert.equal((await alice.request('DELETE', `/artifacts/${id}`, { headers: { 'if-match': '"2"' } })).status, 204);
    assert.equal((await alice.get(`/artifacts/${id}`)).status, 404);
  });
});

describe('revision history', () => {
  it('lists every revision of a draft, oldest first, with who wrote it; one revision with its content', async () => {
    const id = await draft('first');
    await alice.patch(`/artifacts/${id}`, { title: 'second', content: 'y' });
    await alice.post(`/artifacts/${id}/manage`, { action: 'archive' });
    const list = await alice.get(`/artifacts/${id}/revisions`);
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(
      list.body.items.map((r: any) => [r.revision, r.title, r.state]),
      [
        [1, 'first', 'draft'],
        [2, 'second', 'draft'],
        [3, 'second', 'archived'],
      ],
    );
    assert.equal(list.body.items[1].provenance.updated_by, alice.userId);
    assert.equal(list.body.items[1].content, undefined);
    const page = await alice.get(`/artifacts/${id}/revisions?limit=1`);
    const next = await alice.get(`/artifacts/${id}/revisions?limit=1&cursor=${page.body.next_cursor}`);
    assert.equal(next.body.items[0].revision, 2);
    const two = await alice.get(`/artifacts/${id}/revisions/2`);
    assert.equal(two.status, 200, two.text);
    assert.equal(two.body.content, 'y');
    assert.equal((await alice.get(`/artifacts/${id}/revisions/9`)).status, 404);
    assert.equal((await alice.get(`/artifacts/${id}/revisions/0`)).status, 400);
    assert.equal((await alice.get(`/artifacts/${id}/revisions?cursor=bogus`)).status, 400);
  });

  it('a revision claimed by a writer that died before writing the draft is shown by the next read and rolled forward by the next writer', async () => {
    const id = await draft('before the crash');
    const { revisionId, revisionsCollection } = await import('../../src/store/revisions.js');
    const one = await revisionsCollection(platform.services.db).findOne({ _id: revisionId(id, 1) });
    // What a writer leaves when it dies between its claim and its document write.
    await revisionsCollection(platform.services.db).insertOne({
      _id: revisionId(id, 2),
      artifact_id: id,
      revision: 2,
      state: { ...one!.state!, title: 'claimed, never written' },
      claimed_at: new Date(),
    });
    // A read shows it (reads settle in memory, issue #30): the claim is the draft's state. Reads never
    // write: the stored document stays behind until a writer settles it.
    const read = (await alice.get(`/artifacts/${id}`)).body;
    assert.equal(read.revision, 2);
    assert.equal(read.title, 'claimed, never written');
    const stored = () => platform.services.db.collection('artifacts').findOne({ _id: id as never });
    assert.equal((await stored())?.revision, 1);
    // A conditional write at the revision the client saw before learns that the draft has moved on...
    assertMismatch(await alice.request('PATCH', `/artifacts/${id}`, { body: { title: 'stale' }, headers: { 'if-match': '"1"' } }), 2);
    assert.equal((await alice.get(`/artifacts/${id}`)).body.title, 'claimed, never written');
    // ...and a blind one lands on top of it.
    const r = await alice.patch(`/artifacts/${id}`, { content: 'after' });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.revision, 3);
    assert.equal(r.body.title, 'claimed, never written');
    assert.equal((await stored())?.revision, 3);
    const history = (await alice.get(`/artifacts/${id}/revisions`)).body.items.map((x: any) => x.title);
    assert.deepEqual(history, ['before the crash', 'claimed, never written', 'claimed, never written']);
  });

  it('a draft written back to an older revision (a racing write on an engine without isolation) is repaired from its claims', async () => {
    const id = await draft('one');
    await alice.patch(`/artifacts/${id}`, { title: 'two' });
    // What a slower writer holding the revision 1 document does on FerretDB: it writes all of it back.
    await platform.services.db.collection('artifacts').updateOne({ _id: id as never }, { $set: { title: 'one', revision: 1 } });
    const r = await alice.patch(`/artifacts/${id}`, { content: 'three' });
    assert.equal(r.body.revision, 3);
    assert.equal(r.body.title, 'two');
  });

  it('is 404 to someone who cannot see the draft', async () => {
    const id = await draft();
    const bob = await platform.newUser();
    assert.equal((await bob.get(`/artifacts/${id}/revisions`)).status, 404);
  });
});

describe('MCP update_artifact with a revision', () => {
  it('applies at the revision it names, and is an error result naming the current one otherwise', async () => {
    const id = await draft();
    const client = new Client({ name: 'etag-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${platform.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${alice.token}` } },
      }),
    );
    try {
      const ok = await client.callTool({ name: 'update_artifact', arguments: { id, title: 'via mcp', revision: 1 } });
      assert.ok(!ok.isError, JSON.stringify(ok));
      assert.equal((ok.structuredContent as { revision: number }).revision, 2);
      const stale = await client.callTool({ name: 'update_artifact', arguments: { id, title: 'lost', revision: 1 } });
      assert.equal(stale.isError, true);
      assert.match((stale.content as { text: string }[])[0]!.text, /revision 2/);
      assert.equal((await alice.get(`/artifacts/${id}`)).body.title, 'via mcp');
      const blind = await client.callTool({ name: 'update_artifact', arguments: { id, title: 'blind' } });
      assert.ok(!blind.isError, JSON.stringify(blind));
    } finally {
      await client.close();
    }
  });
});
