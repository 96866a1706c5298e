// What a stream session keeps is bounded (issue #36): a recorded file larger than
// STREAM_MAX_FILE_BYTES is counted, not kept; the take's metadata still says what was received.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { eventually, type Api } from '../helpers/http.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';
import { publish } from './publisher.js';

let platform: TestPlatform;
let admin: Api;

before(async () => {
  platform = await startPlatform({ STREAM_PORTS: '24935-24960', STREAM_MAX_FILE_BYTES: '1024' });
  admin = await platform.admin();
});
after(async () => platform?.close());

describe('the size of what a stream keeps', () => {
  it('counts files over STREAM_MAX_FILE_BYTES as too large and keeps none of them', async () => {
    const ws = (await admin.post('/workspaces', { name: 'limits' })).body.id;
    const key = randomBytes(16).toString('hex');
    const secret = (await admin.post('/secrets', { name: 'key', value: key })).body.id;
    const stream = await admin.post('/artifacts', {
      title: 'Big frames',
      content_type: 'application/vnd.platform.stream+json',
      content: JSON.stringify({
        source: { mode: 'push' },
        key_secret_id: secret,
        record: { segments: { seconds: 2 }, stills: { every_seconds: 1 } },
      }),
      collection_id: ws,
    });
    const id = stream.body.id;
    const started = await admin.post(`/artifacts/${id}/op/start`, {});
    assert.equal(started.status, 200, started.text);
    assert.equal((await publish(`${started.body.ingest_url}/${key}`, 4)).code, 0);
    const status = await eventually(
      async () => {
        const s = (await admin.get(`/artifacts/${id}/status`)).body;
        return s.counts.metadata === 1 ? s : null;
      },
      30_000,
      'the take ended',
    );
    assert.equal(status.counts.segments, 0);
    assert.equal(status.counts.stills, 0);
    assert.ok(status.counts.too_large >= 4, JSON.stringify(status.counts));
    const meta = JSON.parse((await admin.get(`/artifacts/${status.recorded.metadata[0]}`)).body.content);
    assert.ok(meta.segments >= 2 && meta.media.video.codec === 'h264', JSON.stringify(meta));
    const kept = await platform.services.db.collection('artifacts').countDocuments({ 'context.stream.id': id });
    assert.equal(kept, 1, 'only the metadata');
    assert.equal((await admin.post(`/artifacts/${id}/op/stop`, {})).status, 200);
  });
});
