// A worker killed in the middle of applying a 200-artifact commit: once a worker is back, the commit
// finishes with exactly one new version per artifact.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { eventually, type Api } from '../helpers/http.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';
import { workerProcess } from '../helpers/worker-process.js';

const size = 200;
let platform: TestPlatform;
let admin: Api;
let worker: ChildProcess | undefined;

before(async () => {
  // Small batches: the apply runs as 40 activities, so the kill lands in the middle of it.
  platform = await startPlatform({ COMMIT_APPLY_BATCH: '5' }, { worker: false });
  admin = await platform.admin();
});
after(async () => {
  worker?.kill('SIGKILL');
  await platform.close();
});

describe('a worker killed during apply', () => {
  it(`resumes and commits exactly ${size} versions`, async () => {
    const ws = (await admin.post('/workspaces', { name: 'big' })).body.id;
    const col = (await admin.post('/collections', { name: 'target' })).body.id;
    const drafts = new Set<string>();
    for (let i = 0; i < size; i++) {
      const reply = await admin.post('/artifacts', {
        title: `Doc ${i}`,
        content_type: 'text/plain',
        content: `text of document ${i}`,
        collection_id: ws,
      });
      assert.equal(reply.status, 201, reply.text);
      drafts.add(reply.body.id);
    }
    worker = await workerProcess(platform);
    const req = await admin.post(`/workspaces/${ws}/commits`, { collection_id: col, message: 'all of them' });
    assert.equal(req.status, 202, req.text);
    const id = req.body.id;
    await eventually(async () => (await admin.get(`/commits/${id}`)).body.state === 'awaiting_approval', 60_000, 'awaiting approval');
    const approved = await admin.post(`/commits/${id}/approve`, {});
    assert.equal(approved.status, 200, approved.text);

    const versions = platform.services.db.collection('artifact_versions');
    const written = () => versions.countDocuments({ 'provenance.commit_id': id });
    const atKill = await eventually(
      async () => {
        const n = await written();
        return n > 0 ? n : null;
      },
      60_000,
      'apply under way',
    );
    worker.kill('SIGKILL');
    assert.ok(atKill < size, `the worker was killed mid-apply (${atKill} of ${size} written)`);

    worker = await workerProcess(platform);
    const done = await eventually(
      async () => {
        const body = (await admin.get(`/commits/${id}`)).body;
        return body.state === 'committed' ? body : null;
      },
      90_000,
      'committed after the restart',
    );

    assert.equal(await written(), size, 'one version per artifact, no duplicates');
    const all = await versions.find({ 'provenance.commit_id': id }).toArray();
    assert.equal(new Set(all.map((v) => v.artifact_id)).size, size);
    assert.ok(all.every((v) => v.version === 1));
    assert.deepEqual(new Set(all.map((v) => v.provenance.source_artifact_id)), drafts);
    assert.equal(await platform.services.db.collection('artifacts').countDocuments({ collection_id: col }), size);
    assert.deepEqual(done.progress, { applied: size, total: size });
    assert.equal(done.results.length, size);
    assert.ok(done.results.every((r: { version: number }) => r.version === 1));
  });
});
