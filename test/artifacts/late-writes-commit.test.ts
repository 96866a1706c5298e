// A commit of a draft whose stored document a late write moved back (issue #30). The late write is
// made deterministic as in late-writes.test.ts: a second connection (another process's) reads the
// document, a newer edit is acknowledged, then the older document lands over it. A commit requested
// afterwards must preview, and commit, the acknowledged content (read from the draft's revision
// claims in memory), and the preview must not write the draft (reads never write).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Db } from 'mongodb';
import type { StoreClient } from '../../src/store/mongo.js';
import type { ArtifactDoc } from '../../src/store/artifacts.js';
import { createStoreClient, openDatabase } from '../../src/store/mongo.js';
import { eventually, type Api } from '../helpers/http.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

let platform: TestPlatform;
let admin: Api;
let client: StoreClient;
/** The other process's connection: where the late write comes from. */
let other: Db;

before(async () => {
  platform = await startPlatform();
  admin = await platform.admin();
  client = createStoreClient(platform.config.storeUri);
  other = openDatabase(client, platform.config.MONGODB_DB);
});
after(async () => {
  await client?.close();
  await platform?.close();
});

const raw = () => other.collection<ArtifactDoc>('artifacts');

/** The worker's embedding of `revision` is stored: its write-back (which settles) is behind us. */
const embedded = (id: string, revision: number) =>
  eventually(async () => (await raw().findOne({ _id: id }))?.search?.revision === revision, 60_000, `${id} embedded at ${revision}`);

async function commitIn(id: string, state: string) {
  return eventually(
    async () => {
      const r = await admin.get(`/commits/${id}`);
      assert.equal(r.status, 200, r.text);
      return r.body.state === state ? r.body : null;
    },
    60_000,
    `commit ${id} ${state}`,
  );
}

describe('a commit of a draft a late write moved back', () => {
  it('previews and commits the acknowledged revision, and the preview writes nothing', async () => {
    const ws = (await admin.post('/workspaces', { name: 'late commit' })).body.id as string;
    const col = (await admin.post('/collections', { name: 'late commit target' })).body.id as string;
    const made = await admin.post('/artifacts', { title: 'v1', content_type: 'text/markdown', content: 'one', collection_id: ws });
    assert.equal(made.status, 201, made.text);
    const id = made.body.id as string;
    assert.equal((await admin.patch(`/artifacts/${id}`, { title: 'v2', content: 'two' })).body.revision, 2);
    await embedded(id, 2);
    // A whole-document write of revision 2 reads the document now, in another process…
    const older = (await raw().findOne({ _id: id }))!;
    // …a newer edit is acknowledged…
    const newer = await admin.patch(`/artifacts/${id}`, { title: 'v3', content: 'three, acknowledged' });
    assert.equal(newer.status, 200, newer.text);
    assert.equal(newer.body.revision, 3);
    await embedded(id, 3);
    // …and the older write lands after it: the stored draft is at revision 2 again. The worker's
    // write-back of revision 3 settles just after the update `embedded` saw, and that settle rolls a
    // document put back before it forward again: the late write is made again until it stays.
    const { _id, ...rest } = older;
    for (let attempt = 1; ; attempt++) {
      assert.equal((await raw().replaceOne({ _id }, rest)).matchedCount, 1);
      await new Promise((r) => setTimeout(r, 500));
      if ((await raw().findOne({ _id: id }))!.revision === 2) break;
      assert.ok(attempt < 5, 'the interleaving was not reproduced');
    }

    const dry = await admin.post(`/workspaces/${ws}/commit-preview`, { collection_id: col });
    assert.equal(dry.status, 200, dry.text);
    assert.equal(dry.body.items[0].source_revision, 3);
    assert.equal(dry.body.items[0].title, 'v3');

    const requested = await admin.post(`/workspaces/${ws}/commits`, { collection_id: col, message: 'late' });
    assert.equal(requested.status, 202, requested.text);
    const commitId = requested.body.id as string;
    await commitIn(commitId, 'awaiting_approval');
    const items = await admin.get(`/commits/${commitId}/items`);
    assert.equal(items.status, 200, items.text);
    const [item] = items.body.items;
    assert.equal(item.source_revision, 3, `the preview read revision ${item.source_revision}, behind the acknowledged 3`);
    assert.equal(item.title, 'v3');
    assert.match(item.content_diff, /^\+three, acknowledged$/m);
    // Previews read the claims in memory: the stored draft is as the late write left it.
    assert.equal((await raw().findOne({ _id: id }))!.revision, 2);

    assert.equal((await admin.post(`/commits/${commitId}/approve`, {})).status, 200);
    const committed = await commitIn(commitId, 'committed');
    const target = committed.results[0].artifact_id as string;
    const got = await admin.get(`/artifacts/${target}`);
    assert.equal(got.status, 200, got.text);
    assert.equal(got.body.content, 'three, acknowledged', `the collection got ${JSON.stringify(got.body.content)}`);
    assert.equal(got.body.title, 'v3');
    const version = await platform.services.db.collection('artifact_versions').findOne({ artifact_id: target, version: 1 });
    assert.equal(version?.content, 'three, acknowledged');
    assert.equal(version?.provenance?.source_revision, 3);
  });
});
