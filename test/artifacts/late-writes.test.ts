// Writes that land late (issue #30). On the embedded engine an update is not atomic: FerretDB reads the
// document its filter matches, applies the change to what it read, and writes the whole document
// back. When another write lands between that read and that write, or when a call that missed its
// deadline lands after the writer gave up on it, the document moves back to what the late write read.
// These tests make that interleaving deterministic: a second connection (another process's, as the
// worker has) reads the document as the late write's engine-side read would, the newer write is made
// through the store or REST, and then the late write lands (a whole-document replace of what was
// read). Every read after an acknowledged write must still show it, and no enrichment may be lost.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Db } from 'mongodb';
import type { StoreClient } from '../../src/store/mongo.js';
import { ArtifactStore, type ArtifactDoc } from '../../src/store/artifacts.js';
import { createStoreClient, openDatabase } from '../../src/store/mongo.js';
import type { Api } from '../helpers/http.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

let platform: TestPlatform;
let admin: Api;
let client: StoreClient;
/** The other process's connection: where the late writes come from. */
let other: Db;
let ws: string;

before(async () => {
  platform = await startPlatform({}, { worker: false });
  admin = await platform.admin();
  client = createStoreClient(platform.config.storeUri);
  other = openDatabase(client, platform.config.MONGODB_DB);
  ws = (await admin.post('/workspaces', { name: 'late writes' })).body.id as string;
});
after(async () => {
  await client?.close();
  await platform?.close();
});

const raw = () => other.collection<ArtifactDoc>('artifacts');

async function draft(title: string): Promise<string> {
  const r = await admin.post('/artifacts', { title, content_type: 'text/markdown', content: 'Late writes.', collection_id: ws });
  assert.equal(r.status, 201, r.text);
  return r.body.id as string;
}

/** The late write lands: the whole document as its engine-side read saw it, with its own change. */
async function lands(doc: ArtifactDoc, change: Partial<ArtifactDoc> = {}): Promise<void> {
  const { _id, ...rest } = doc;
  const r = await raw().replaceOne({ _id }, { ...rest, ...change });
  assert.equal(r.matchedCount, 1);
}

/** get_artifact over /mcp, as an MCP client reads it. */
async function mcpGet(id: string) {
  const r = await admin.request('POST', '/mcp', {
    body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_artifact', arguments: { id } } },
    headers: { accept: 'application/json, text/event-stream' },
  });
  assert.equal(r.status, 200, r.text);
  const result = r.body.result as { structuredContent?: { revision: number; title: string }; content: { text: string }[] };
  return result.structuredContent ?? (JSON.parse(result.content[0]!.text) as { revision: number; title: string });
}

describe('writes that land late', () => {
  it('keeps an on_create enrichment that an embedding write-back read before it and wrote after it', async () => {
    const id = await draft('to enrich');
    // The worker's embedding write-back of revision 1: its engine-side read happens now…
    const read = (await raw().findOne({ _id: id }))!;
    // …the enrichment is made (from the other connection, as the worker's activity makes it)…
    const worker = new ArtifactStore(other);
    assert.ok(await worker.mergeContext(id, { word_count: 2, tags: ['late'] }));
    // …and then the write-back lands, followed by the settle storeEmbedding makes after its write.
    await lands(read, { search: { embedder: 'test', content_hash: 'x', vector: [0.5], revision: 1, embedded_at: new Date() } });
    await worker.settle(id);

    const got = await admin.get(`/artifacts/${id}`);
    assert.equal(got.status, 200, got.text);
    assert.equal(got.body.context.word_count, 2, `the enrichment was lost: ${JSON.stringify(got.body)}`);
    assert.deepEqual(got.body.context.tags, ['late']);
    // The enrichment is a revision of its own, in the history like any write.
    assert.equal(got.body.revision, 2);
    const history = (await admin.get(`/artifacts/${id}/revisions`)).body.items as { revision: number }[];
    assert.deepEqual(
      history.map((r) => r.revision),
      [1, 2],
    );
  });

  it('keeps an enrichment that an edit races, and the edit too', async () => {
    const id = await draft('edited while enriched');
    const read = (await raw().findOne({ _id: id }))!;
    // An edit claims revision 2 from the document as it was before the enrichment…
    const edit = await admin.patch(`/artifacts/${id}`, { title: 'edited' });
    assert.equal(edit.status, 200, edit.text);
    assert.ok(await new ArtifactStore(other).mergeContext(id, { word_count: 3 }));
    // …and a write of that older document lands after both.
    await lands(read);
    const got = (await admin.get(`/artifacts/${id}`)).body;
    assert.equal(got.title, 'edited');
    assert.equal(got.context.word_count, 3, `the enrichment was lost: ${JSON.stringify(got)}`);
  });

  it('makes an enrichment once however often its activity is retried, and reports it as an update of the context', async () => {
    const id = await draft('enriched once');
    const store = new ArtifactStore(other);
    const run = { invocationId: '01a20000-0000-7000-8000-000000000001', since: new Date(Date.now() - 1000) };
    const first = await store.mergeContext(id, { word_count: 4 }, run);
    assert.equal(first?.doc.revision, 2);
    // A person edits the key afterwards; the retried activity must not put the server's value back.
    assert.equal((await admin.patch(`/artifacts/${id}`, { context: { word_count: 40 } })).status, 200);
    const retried = await store.mergeContext(id, { word_count: 4 }, run);
    assert.equal(retried?.doc.revision, 3);
    const got = (await admin.get(`/artifacts/${id}`)).body;
    assert.equal(got.revision, 3);
    assert.equal(got.context.word_count, 40);
    const claim = await store.revisionAt(id, 2);
    assert.equal(claim?.event?.kind, 'artifact_updated');
    assert.deepEqual(claim?.event?.changed, ['context']);
    assert.equal(claim?.state?.provenance.source.lifecycle, 'on_create');
    assert.equal(claim?.state?.provenance.source.invocation_id, run.invocationId);
  });

  it('answers every read with the last acknowledged revision when an older write lands after a newer one', async () => {
    const id = await draft('v1');
    assert.equal((await admin.patch(`/artifacts/${id}`, { title: 'v2' })).body.revision, 2);
    // A settle (or any whole-document write) of revision 2 reads the document now, in another process…
    const older = (await raw().findOne({ _id: id }))!;
    assert.equal(older.revision, 2);
    // …a newer edit is made and acknowledged…
    const newer = await admin.patch(`/artifacts/${id}`, { title: 'v3', content: 'the newest' });
    assert.equal(newer.status, 200, newer.text);
    assert.equal(newer.body.revision, 3);
    // …and the older write lands after it: the document is at revision 2 again.
    await lands(older);
    assert.equal((await raw().findOne({ _id: id }))!.revision, 2, 'the interleaving was not reproduced');

    const got = await admin.get(`/artifacts/${id}`);
    assert.equal(got.status, 200, got.text);
    assert.equal(got.body.revision, 3, `GET answered revision ${got.body.revision} after revision 3 was acknowledged`);
    assert.equal(got.body.title, 'v3');
    assert.equal(got.body.content, 'the newest');
    assert.equal(got.headers.get('etag'), '"3"');
    // The read answered from the claims, in memory: it wrote nothing (a reader's late repair could move
    // the document back for lists and search; repair is left to writers). MCP reads see the same.
    assert.equal((await raw().findOne({ _id: id }))!.revision, 2, 'a read wrote the document');
    const viaMcp = await mcpGet(id);
    assert.equal(viaMcp.revision, 3);
    assert.equal(viaMcp.title, 'v3');
    assert.equal((await raw().findOne({ _id: id }))!.revision, 2);
    // A conditional edit at the acknowledged revision applies (it is not told an older one), and the
    // writer leaves the document at its revision.
    const conditional = await admin.request('PATCH', `/artifacts/${id}`, { body: { title: 'v4' }, headers: { 'if-match': '"3"' } });
    assert.equal(conditional.status, 200, conditional.text);
    assert.equal(conditional.body.revision, 4);
    assert.equal((await raw().findOne({ _id: id }))!.revision, 4);
    // The store's settling read by id, current() (what the REST and MCP reads by id, agent inputs and
    // proposed-action checks use; most other callers read the stored document with get/getMany),
    // answers the latest claim, in memory, also over more than one claim the document is behind, and
    // currentMany() by ids as well.
    await lands(older);
    const store = new ArtifactStore(other);
    const current = await store.current(id);
    assert.equal(current?.revision, 4);
    assert.equal(current?.title, 'v4');
    assert.equal(current?.content, 'the newest');
    assert.equal(current?.provenance.updated_at.toISOString(), conditional.body.provenance.updated_at);
    const [many] = await store.currentMany([id]);
    assert.equal(many?.revision, 4);
    assert.equal((await raw().findOne({ _id: id }))!.revision, 2, 'a read wrote the document');
    const got4 = await admin.get(`/artifacts/${id}`);
    assert.equal(got4.body.revision, 4);
    assert.equal(got4.headers.get('etag'), '"4"');
    assert.equal(got4.body.content, 'the newest');
    assert.deepEqual(got4.body.provenance, conditional.body.provenance);
  });

  it('answers a draft whose latest claim archived or deleted it as such, from every read by id', async () => {
    const id = await draft('to archive, then delete');
    const unarchived = (await raw().findOne({ _id: id }))!;
    assert.equal((await admin.post(`/artifacts/${id}/manage`, { action: 'archive' })).status, 200);
    await lands(unarchived);
    const archived = await admin.get(`/artifacts/${id}`);
    assert.equal(archived.body.state, 'archived');
    assert.ok(archived.body.archived_at);
    assert.equal(archived.body.revision, 2);
    const edit = await admin.patch(`/artifacts/${id}`, { title: 'edited while archived' });
    assert.equal(edit.status, 409, edit.text);
    assert.equal(edit.body.type, 'urn:platform:problem:archived-artifact');

    const older = (await raw().findOne({ _id: id }))!;
    assert.equal((await admin.request('DELETE', `/artifacts/${id}`)).status, 204);
    // A late write puts the deleted draft's document back (the deleter's delete had landed first).
    const { _id, ...rest } = older;
    await raw().insertOne({ _id, ...rest });
    assert.equal((await admin.get(`/artifacts/${id}`)).status, 404);
    assert.equal(await new ArtifactStore(other).current(id), null);
    assert.deepEqual(await new ArtifactStore(other).currentMany([id]), []);
  });
});
