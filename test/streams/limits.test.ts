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
  platform = await startPlatform({
    STREAM_PORTS: '24935-24960',
    STREAM_MAX_FILE_BYTES: '1024',
    STREAM_MAX_SESSIONS: '2',
    STREAM_MAX_SESSIONS_PER_PERSON: '1',
  });
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

/** A pushed stream in a new workspace of `api`'s person, with its key stored as their secret. */
async function pushedStream(api: Api): Promise<string> {
  const ws = (await api.post('/workspaces', { name: 'caps' })).body.id;
  const secret = (await api.post('/secrets', { name: 'key', value: randomBytes(16).toString('hex') })).body.id;
  const stream = await api.post('/artifacts', {
    title: 'Capped',
    content_type: 'application/vnd.platform.stream+json',
    content: JSON.stringify({ source: { mode: 'push' }, key_secret_id: secret, record: { segments: { seconds: 2 } } }),
    collection_id: ws,
  });
  assert.equal(stream.status, 201, stream.text);
  return stream.body.id;
}

describe('how many sessions run at once', () => {
  it('refuses a person over STREAM_MAX_SESSIONS_PER_PERSON (429) and anyone over STREAM_MAX_SESSIONS (409)', async () => {
    const [a, b] = [await pushedStream(admin), await pushedStream(admin)];
    const second = await platform.newUser();
    const third = await platform.newUser();
    const c = await pushedStream(second);
    const d = await pushedStream(third);
    assert.equal((await admin.post(`/artifacts/${a}/op/start`, {})).status, 200);
    const overPerson = await admin.post(`/artifacts/${b}/op/start`, {});
    assert.equal(overPerson.status, 429, overPerson.text);
    assert.match(overPerson.body.type, /stream-sessions-per-person$/);
    assert.equal((await second.post(`/artifacts/${c}/op/start`, {})).status, 200);
    const overAll = await third.post(`/artifacts/${d}/op/start`, {});
    assert.equal(overAll.status, 409, overAll.text);
    assert.match(overAll.body.type, /stream-sessions-full$/);
    // A stopped session frees its place.
    assert.equal((await admin.post(`/artifacts/${a}/op/stop`, {})).status, 200);
    assert.equal((await third.post(`/artifacts/${d}/op/start`, {})).status, 200);
    assert.equal((await second.post(`/artifacts/${c}/op/stop`, {})).status, 200);
    assert.equal((await third.post(`/artifacts/${d}/op/stop`, {})).status, 200);
  });
});

describe('two attempts of one session at once', () => {
  it('gives each take its own number and ignores the superseded attempt', async () => {
    const sessions = platform.services.streamSessions;
    const now = new Date();
    const streamId = `fence-${randomBytes(4).toString('hex')}`;
    await sessions.begin({
      _id: streamId,
      session_id: 's1',
      workflow_id: 'w',
      workspace_id: 'ws',
      requested_by: 'nobody',
      principal: {} as never,
      state: 'ended', // not live: counts against no cap
      ingest_url: null,
      started_at: now,
      ends_by: now,
      ended_at: null,
      publisher: null,
      counts: { takes: 0, segments: 0, stills: 0, metadata: 0, refused: 0, too_large: 0 },
      recorded: { segments: [], stills: [], metadata: [] },
      error: null,
      updated_at: now,
    });
    assert.equal(await sessions.claim(streamId, 's1', 1), true);
    assert.equal(await sessions.reserveTake(streamId, 's1', 1), 1);
    assert.equal(await sessions.claim(streamId, 's1', 2), true);
    // The first attempt, still running, can neither take a number nor write.
    assert.equal(await sessions.reserveTake(streamId, 's1', 1), null);
    assert.equal(await sessions.update(streamId, 's1', { state: 'starting', ingest_url: null }, 1), false);
    assert.equal(await sessions.claim(streamId, 's1', 1), false);
    const [a, b] = await Promise.all([sessions.reserveTake(streamId, 's1', 2), sessions.reserveTake(streamId, 's1', 2)]);
    assert.deepEqual([a, b].sort(), [2, 3]);
    assert.equal(await sessions.update(streamId, 's1', { error: 'x' }, 2), true);
    const doc = await sessions.get(streamId);
    assert.equal(doc?.state, 'ended');
    assert.equal(doc?.counts.takes, 3);
  });
});
