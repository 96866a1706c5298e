// A worker killed in the middle of a bulk import (issue #33): once a worker is back, the import
// completes with every item imported exactly once: one artifact, one outcome and one
// artifact_created event per item, however many batches ran twice.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { eventually, type Api } from '../helpers/http.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';
import { workerProcess } from '../helpers/worker-process.js';

const size = 600;
let platform: TestPlatform;
let admin: Api;
let worker: ChildProcess | undefined;

before(async () => {
  // Batches of 10: the import runs as 60 activities, so the kill lands in the middle of it.
  platform = await startPlatform({ IMPORT_BATCH: '10' }, { worker: false });
  admin = await platform.admin();
});
after(async () => {
  worker?.kill('SIGKILL');
  await platform.close();
});

describe('a worker killed during an import', () => {
  it(`resumes and imports each of ${size} items exactly once`, async () => {
    const ws = (await admin.post('/workspaces', { name: 'crash' })).body.id;
    const items = Array.from({ length: size }, (_, i) => ({
      key: `doc-${i}`,
      title: `Document ${i}`,
      content_type: 'text/plain',
      content: `text of document ${i}`,
    }));
    worker = await workerProcess(platform);
    const reply = await admin.request('POST', `/workspaces/${ws}/imports`, {
      raw: items.map((i) => JSON.stringify(i)).join('\n'),
      headers: { 'content-type': 'application/x-ndjson' },
    });
    assert.equal(reply.status, 202, reply.text);
    const id = reply.body.id;
    const artifacts = platform.services.db.collection('artifacts');
    const written = () => artifacts.countDocuments({ collection_id: ws });
    const atKill = await eventually(
      async () => {
        const n = await written();
        return n > 0 ? n : null;
      },
      60_000,
      'import under way',
    );
    worker.kill('SIGKILL');
    assert.ok(atKill < size, `the worker was killed mid-import (${atKill} of ${size} written)`);

    worker = await workerProcess(platform);
    const done = await eventually(
      async () => {
        const body = (await admin.get(`/imports/${id}`)).body;
        return body.state === 'completed' ? body : null;
      },
      120_000,
      'completed after the restart',
    );
    assert.deepEqual(done.counts, { done: size, created: size, skipped: 0, failed: 0, remaining: 0 });
    const all = await artifacts.find({ collection_id: ws }).toArray();
    assert.equal(all.length, size, 'one artifact per item, no duplicates');
    assert.deepEqual(new Set(all.map((a) => a.title)), new Set(items.map((i) => i.title)));
    assert.equal(await platform.services.db.collection('import_outcomes').countDocuments({ import_id: id }), size);
    assert.equal(await platform.services.db.collection('import_items').countDocuments({ import_id: id }), 0, 'staged items removed');
    const revisions = platform.services.db.collection('artifact_revisions');
    for (const a of all.slice(0, 50)) assert.equal(await revisions.countDocuments({ artifact_id: a._id }), 1, 'one first revision');
    // One artifact_created event per item: the outbox's claims were inserted once, and relayed (or swept) once each.
    await eventually(
      async () => {
        const n = await platform.services.db.collection('events').countDocuments({ workspace_id: ws, kind: 'artifact_created' });
        return n === size ? n : null;
      },
      90_000,
      `${size} artifact_created events`,
    );
    const events = await platform.services.db.collection('events').find({ workspace_id: ws }).toArray();
    assert.equal(new Set(events.map((e) => e.artifact_id)).size, size);
    assert.equal(events.length, size);
  });
});
