// The commit applier against the real MongoDB-wire engine, without Temporal: retried, concurrent and
// competing applies leave exactly one version per (artifact, commit), and heads on the newest version.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Db } from 'mongodb';
import type { StoreClient } from '../../src/store/mongo.js';
import { CommitApplier } from '../../src/commits/apply.js';
import type { ArtifactDoc } from '../../src/store/artifacts.js';
import { commitChunks, commitsCollection, previewDocId, type CommitChunkDoc, type CommitDoc } from '../../src/store/commits.js';
import { containerCollection } from '../../src/store/containers.js';
import { createStoreClient, ensureIndexes } from '../../src/store/mongo.js';
import { versionId, versionsCollection } from '../../src/store/versions.js';

let client: StoreClient;
let db: Db;
const person = randomUUID();

before(async () => {
  client = createStoreClient(process.env.TEST_STORE_URI!);
  db = client.db(`test_apply_${randomBytes(4).toString('hex')}`);
  await ensureIndexes(db);
});
after(async () => {
  await db.dropDatabase();
  await client.close();
});

async function collection(): Promise<string> {
  const id = randomUUID();
  const now = new Date();
  await containerCollection(db, 'collection').insertOne({
    _id: id,
    kind: 'collection',
    name: 'c',
    description: '',
    metadata: {},
    owner_id: person,
    shares: [],
    readers: [],
    last_order_key: null,
    created_at: now,
    updated_at: now,
  });
  return id;
}

/** A commit, approved, whose one chunk commits `items` (artifact id, expected version, content). */
async function approvedCommit(
  collectionId: string,
  items: { artifactId: string; current: number | null; content: string }[],
): Promise<CommitDoc> {
  const id = randomUUID();
  const now = new Date();
  const commit: CommitDoc = {
    _id: id,
    workflow_id: `commit-x-${id}`,
    workspace_id: randomUUID(),
    collection_id: collectionId,
    artifact_ids: items.map(() => randomUUID()),
    selection: 'all',
    request_hash: 'h',
    generation: 1,
    message: 'm',
    expiry_seconds: 60,
    state: 'applying',
    rank: 0,
    requested_by: person,
    created_at: now,
    updated_at: now,
    expires_at: null,
    counts: { new: 0, modified: 0, unchanged: 0 },
    total: items.length,
    applied: 0,
    chunks: 1,
    decision: { action: 'approve', by: person, comment: null, at: now },
  };
  const chunk: CommitChunkDoc = {
    _id: previewDocId(id, 1, 0),
    commit_id: id,
    generation: 1,
    index: 0,
    offset: 0,
    items: items.map((item, i) => ({
      source_artifact_id: commit.artifact_ids[i]!,
      source_revision: 1,
      artifact_id: item.artifactId,
      version: (item.current ?? 0) + 1,
      current_version: item.current,
      snapshot: { title: 't', content_type: 'text/plain', content: item.content, context: {}, drafted_by: person, last_edited_by: person },
    })),
  };
  await commitsCollection(db).insertOne(commit);
  await commitChunks(db).insertOne(chunk);
  return commit;
}

const versionsOf = (artifactId: string) => versionsCollection(db).find({ artifact_id: artifactId }).sort({ version: 1 }).toArray();
const head = (artifactId: string) => db.collection<ArtifactDoc>('artifacts').findOne({ _id: artifactId });

describe('CommitApplier', () => {
  it('writes one version per artifact however often, and however concurrently, a chunk is applied', async () => {
    const col = await collection();
    const ids = [randomUUID(), randomUUID(), randomUUID()];
    const commit = await approvedCommit(
      col,
      ids.map((artifactId) => ({ artifactId, current: null, content: `text ${artifactId}` })),
    );
    const applier = new CommitApplier(db);
    assert.deepEqual(
      (await applier.applyChunk(commit, 0)).map((r) => [r.artifact_id, r.version]),
      ids.map((id) => [id, 1]),
    );
    await Promise.all([applier.applyChunk(commit, 0), new CommitApplier(db).applyChunk(commit, 0)]);
    for (const id of ids) {
      assert.deepEqual(
        (await versionsOf(id)).map((v) => v.version),
        [1],
      );
      assert.equal((await head(id))?.version, 1);
    }
    assert.equal(await db.collection('artifacts').countDocuments({ collection_id: col }), 3);
    assert.equal((await commitsCollection(db).findOne({ _id: commit._id }))?.applied, 3);
  });

  it('finishes an apply cut short after its versions were written', async () => {
    const col = await collection();
    const id = randomUUID();
    const commit = await approvedCommit(col, [{ artifactId: id, current: null, content: 'half-way' }]);
    await new CommitApplier(db).applyChunk(commit, 0);
    await db.collection<ArtifactDoc>('artifacts').deleteOne({ _id: id }); // as if the worker died before the head moved
    await new CommitApplier(db).applyChunk(commit, 0);
    assert.deepEqual(
      (await versionsOf(id)).map((v) => v.provenance.commit_id),
      [commit._id],
    );
    assert.equal((await head(id))?.content, 'half-way');
  });

  it('gives two commits of one draft consecutive versions, and leaves the head on the newer', async () => {
    const col = await collection();
    const id = randomUUID();
    await new CommitApplier(db).applyChunk(await approvedCommit(col, [{ artifactId: id, current: null, content: 'v1' }]), 0);
    // Both previewed against version 1; the second approved is applied first.
    const first = await approvedCommit(col, [{ artifactId: id, current: 1, content: 'first' }]);
    const second = await approvedCommit(col, [{ artifactId: id, current: 1, content: 'second' }]);
    await new CommitApplier(db).applyChunk(second, 0);
    await new CommitApplier(db).applyChunk(first, 0);
    await new CommitApplier(db).applyChunk(second, 0); // and retried: nothing more
    const versions = await versionsOf(id);
    assert.deepEqual(
      versions.map((v) => [v.version, v.content]),
      [
        [1, 'v1'],
        [2, 'second'],
        [3, 'first'],
      ],
    );
    assert.equal((await versionsCollection(db).findOne({ _id: versionId(id, 3) }))?.provenance.commit_id, first._id);
    const h = await head(id);
    assert.equal(h?.version, 3);
    assert.equal(h?.content, 'first');
  });

  it('puts back a head that a slower write of an older version left behind (the engine does not isolate updates)', async () => {
    const col = await collection();
    const id = randomUUID();
    await new CommitApplier(db).applyChunk(await approvedCommit(col, [{ artifactId: id, current: null, content: 'v1' }]), 0);
    const second = await approvedCommit(col, [{ artifactId: id, current: 1, content: 'v2' }]);
    await new CommitApplier(db).applyChunk(second, 0);
    await new CommitApplier(db).applyChunk(await approvedCommit(col, [{ artifactId: id, current: 2, content: 'v3' }]), 0);
    // What the second commit's head update does when it lands last on FerretDB: it writes all of it back.
    await db.collection('artifacts').updateOne({ _id: id as never }, { $set: { version: 2, revision: 2, content: 'v2' } });
    // Its apply, retried (or any later one), brings the head to the newest version again.
    await new CommitApplier(db).applyChunk(second, 0);
    const h = await head(id);
    assert.equal(h?.version, 3);
    assert.equal(h?.content, 'v3');
    assert.deepEqual(
      (await versionsOf(id)).map((v) => v.content),
      ['v1', 'v2', 'v3'],
    );
  });

  it('refuses, for good, a chunk the preview never recorded', async () => {
    const col = await collection();
    const commit = await approvedCommit(col, [{ artifactId: randomUUID(), current: null, content: 'x' }]);
    await assert.rejects(
      new CommitApplier(db).applyChunk(commit, 7),
      (err: Error & { nonRetryable?: boolean }) => err.nonRetryable === true,
    );
  });
});
