// The stream content type end to end (issue #36), against the real engines: a stream artifact's
// configuration validated, its session started over REST (a Temporal workflow whose activity
// listens for RTMP on the worker's host), Debian's ffmpeg publishing a generated test pattern on
// loopback, and the recorded segments, stills and metadata read back as artifacts. A publisher
// with a wrong key records nothing; the scopes stream:ingest and stream:read guard the routes.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createApiKey } from '../helpers/credentials.js';
import { eventually, type Api } from '../helpers/http.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';
import { freeLoopbackPort } from '../../src/media/rtmp-ingest.js';
import { publish } from './publisher.js';

const streamType = 'application/vnd.platform.stream+json';
let platform: TestPlatform;
let admin: Api;
let ws: string;
let secretId: string;
const key = `key-${randomBytes(12).toString('hex')}`;

before(async () => {
  // Loopback allowed as a pulled source (an operator's choice): the test's own source server runs there.
  platform = await startPlatform({ STREAM_PORTS: '22935-22960', STREAM_PULL_ALLOW: '127.0.0.0/8' });
  admin = await platform.admin();
  ws = (await admin.post('/workspaces', { name: 'streams' })).body.id;
  const secret = await admin.post('/secrets', { name: 'stream key', value: key });
  assert.equal(secret.status, 201, secret.text);
  secretId = secret.body.id;
});
after(async () => platform?.close());

const config = (over: Record<string, unknown> = {}) => ({
  source: { mode: 'push' },
  key_secret_id: secretId,
  record: { segments: { seconds: 2 }, stills: { every_seconds: 1 }, metadata: true },
  max_duration_seconds: 600,
  ...over,
});
/** ffmpeg processes this test process (API and worker in it) has started and that still run. */
async function ffmpegChildren(): Promise<string[]> {
  let out = '';
  try {
    out = execFileSync('ps', ['-o', 'pid=,comm=', '--ppid', String(process.pid)], { encoding: 'utf8' });
  } catch {
    // ps exits 1 when there is no child at all
  }
  return out.split('\n').filter((l) => /ffmpeg|ffprobe/.test(l));
}
/** GET /artifacts/{id}/status/stream, read as it comes: `until` waits for a status event that matches. */
function followStatus(id: string) {
  const stop = new AbortController();
  const seen: Record<string, any>[] = [];
  const waiters: { match: (s: Record<string, any>) => boolean; done: () => void }[] = [];
  void (async () => {
    const res = await fetch(`${platform.url}/artifacts/${id}/status/stream`, {
      headers: { authorization: `Bearer ${admin.token}` },
      signal: stop.signal,
    });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type')!, /^text\/event-stream/);
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = /^event: status\ndata: (.*)$/m.exec(block);
        if (!data) continue;
        const status = JSON.parse(data[1]!);
        seen.push(status);
        for (const w of [...waiters]) if (w.match(status)) (waiters.splice(waiters.indexOf(w), 1), w.done());
      }
    }
  })().catch(() => undefined);
  return {
    until: (match: (s: Record<string, any>) => boolean) =>
      seen.some(match)
        ? Promise.resolve()
        : new Promise<void>((done, fail) => {
            const timer = setTimeout(() => fail(new Error(`no such status event in ${JSON.stringify(seen)}`)), 20_000);
            waiters.push({ match, done: () => (clearTimeout(timer), done()) });
          }),
    close: () => stop.abort(),
  };
}
const createStream = (content: unknown, title = 'Test pattern') =>
  admin.post('/artifacts', { title, content_type: streamType, content: JSON.stringify(content), collection_id: ws });

describe('a stream configuration', () => {
  it('is refused with a 400 naming the field when it is not one', async () => {
    const cases: [unknown, string][] = [
      [config({ key_secret_id: undefined }), 'content.key_secret_id'],
      [config({ key_secret_id: 'not-a-uuid' }), 'content.key_secret_id'],
      [config({ source: { mode: 'record' } }), 'content.source.mode'],
      [config({ source: { mode: 'pull' } }), 'content.source.url'],
      [config({ source: { mode: 'pull', url: 'http://example.com/live' } }), 'content.source.url'],
      [config({ source: { mode: 'pull', url: 'rtmp://user:pw@example.com/live' } }), 'content.source.url'],
      [config({ source: { mode: 'pull', url: 'rtmp://example.com/live?key=x' } }), 'content.source.url'],
      [config({ record: { metadata: false } }), 'content.record'],
      [config({ record: { segments: { seconds: 0 } } }), 'content.record.segments.seconds'],
      [config({ stream_key: key }), 'content'],
      [config({ max_duration_seconds: 5 }), 'content.max_duration_seconds'],
    ];
    for (const [content, field] of cases) {
      const reply = await createStream(content);
      assert.equal(reply.status, 400, `${JSON.stringify(content)}: ${reply.text}`);
      assert.ok(
        reply.body.invalid_params.some((p: { name: string }) => p.name === field),
        `${field} in ${JSON.stringify(reply.body.invalid_params)}`,
      );
    }
  });
});

describe('a live session', () => {
  let streamId: string;
  before(async () => {
    const reply = await createStream(config());
    assert.equal(reply.status, 201, reply.text);
    streamId = reply.body.id;
  });

  it('is guarded by stream:ingest and stream:read', async () => {
    const readOnly = admin.withToken((await createApiKey(admin, ['artifact:read'])).key);
    assert.equal((await readOnly.post(`/artifacts/${streamId}/op/start`, {})).status, 403);
    assert.equal((await readOnly.get(`/artifacts/${streamId}/status`)).status, 403);
    const reader = admin.withToken((await createApiKey(admin, ['artifact:read', 'stream:read'])).key);
    const idle = await reader.get(`/artifacts/${streamId}/status`);
    assert.equal(idle.status, 200, idle.text);
    assert.equal(idle.body.state, 'idle');
    const refused = await reader.post(`/artifacts/${streamId}/op/start`, {});
    assert.equal(refused.status, 403);
    assert.match(refused.text, /stream:ingest/);
    // Another person who cannot see the workspace does not learn the stream exists.
    const stranger = await platform.newUser();
    assert.equal((await stranger.post(`/artifacts/${streamId}/op/start`, {})).status, 404);
    // A key no encoder can send as it is: refused before anything starts.
    const weak = await admin.post('/secrets', { name: 'weak', value: 'short key!' });
    const weakStream = await createStream(config({ key_secret_id: weak.body.id }), 'Weak');
    const unusable = await admin.post(`/artifacts/${weakStream.body.id}/op/start`, {});
    assert.equal(unusable.status, 409, unusable.text);
    assert.match(unusable.body.type, /stream-key-unusable$/);
    assert.ok(!unusable.text.includes('short key!'), 'the key is not echoed');
    // Not a stream: a clear 409.
    const note = await admin.post('/artifacts', { title: 'n', content_type: 'text/plain', content: 'x', collection_id: ws });
    const wrongType = await admin.get(`/artifacts/${note.body.id}/status`);
    assert.equal(wrongType.status, 409);
    assert.equal(wrongType.body.type.endsWith('not-a-stream'), true, wrongType.text);
  });

  it('records a publish with the right key as segments, stills and metadata, nothing of a wrong key, and stops', async () => {
    const follow = followStatus(streamId);
    await follow.until((s) => s.state === 'idle');
    const started = await admin.post(`/artifacts/${streamId}/op/start`, {});
    assert.equal(started.status, 200, started.text);
    assert.equal(started.body.state, 'listening');
    const ingest: string = started.body.ingest_url;
    assert.match(ingest, /^rtmp:\/\/127\.0\.0\.1:229\d\d\/live$/);
    assert.equal((await admin.post(`/artifacts/${streamId}/op/start`, {})).status, 409, 'one session at a time');

    const wrong = await publish(`${ingest}/wrong-${key}`, 3);
    assert.notEqual(wrong.code, 0, 'the wrong key is disconnected');
    await eventually(
      async () => ((await admin.get(`/artifacts/${streamId}/status`)).body.counts.refused === 1 ? true : null),
      20_000,
      'refused',
    );
    // The follow saw the session listen, then the refusal, as they happened.
    await follow.until((s) => s.state === 'listening' && s.ingest_url === ingest);
    await follow.until((s) => s.counts.refused === 1);
    follow.close();

    const right = await publish(`${ingest}/${key}`, 6);
    assert.equal(right.code, 0, right.stderr);
    const status = await eventually(
      async () => {
        const s = (await admin.get(`/artifacts/${streamId}/status`)).body;
        return s.counts.metadata === 1 && s.state === 'listening' ? s : null;
      },
      30_000,
      'the take recorded',
    );
    assert.equal(status.counts.takes, 1);
    assert.ok(status.counts.segments >= 2, JSON.stringify(status.counts));
    assert.ok(status.counts.stills >= 1, JSON.stringify(status.counts));
    assert.equal(status.recorded.segments.length, status.counts.segments);

    const segment = (await admin.get(`/artifacts/${status.recorded.segments[0]}`)).body;
    assert.equal(segment.content_type, 'video/mp2t');
    assert.equal(segment.collection_id, ws);
    assert.equal(segment.context.stream.id, streamId);
    assert.equal(segment.context.stream.session_id, status.session_id);
    assert.deepEqual(segment.provenance.source, { kind: 'stream', stream_id: streamId, session_id: status.session_id });
    assert.equal(Buffer.from(segment.content, 'base64')[0], 0x47, 'an MPEG-TS sync byte');
    const still = (await admin.get(`/artifacts/${status.recorded.stills[0]}`)).body;
    assert.equal(still.content_type, 'image/jpeg');
    assert.deepEqual([...Buffer.from(still.content, 'base64').subarray(0, 2)], [0xff, 0xd8], 'a JPEG');
    const meta = (await admin.get(`/artifacts/${status.recorded.metadata[0]}`)).body;
    const described = JSON.parse(meta.content);
    assert.equal(described.media.video.codec, 'h264');
    assert.equal(described.media.video.width, 160);
    assert.equal(described.media.video.height, 120);
    assert.equal(described.media.audio.codec, 'aac');
    // The take's length is its segments' media time (never wall time): at most the 6 s published, and
    // what the kept segments say they span.
    assert.ok(described.duration_seconds > 0 && described.duration_seconds <= 6.5, String(described.duration_seconds));
    let spanned = 0;
    for (const id of status.recorded.segments) {
      const c = (await admin.get(`/artifacts/${id}`)).body.context;
      spanned += c.end_seconds - c.start_seconds;
    }
    assert.ok(Math.abs(spanned - described.duration_seconds) < 0.01, `${spanned} vs ${described.duration_seconds}`);
    assert.equal(described.stills, status.counts.stills);

    // Exactly what the right key's take recorded: the wrong one left nothing.
    const all = await platform.services.db.collection('artifacts').find({ collection_id: ws, 'context.stream.id': streamId }).toArray();
    assert.equal(all.length, status.counts.segments + status.counts.stills + status.counts.metadata);
    assert.equal(new Set(all.map((a) => a.context.stream.take)).size, 1);

    const stopped = await admin.post(`/artifacts/${streamId}/op/stop`, {});
    assert.equal(stopped.status, 200, stopped.text);
    assert.equal(stopped.body.state, 'ended');
    assert.equal(stopped.body.ingest_url, null);
    assert.ok(stopped.body.ended_at);
    // Nothing listens any more on the ingest port.
    const port = Number(new URL(ingest.replace('rtmp:', 'http:')).port);
    const open = await new Promise<boolean>((resolve) => {
      const s = net.connect({ port, host: '127.0.0.1' });
      s.once('connect', () => (s.destroy(), resolve(true)));
      s.once('error', () => resolve(false));
    });
    assert.equal(open, false, 'the listener is closed');
    assert.equal((await admin.post(`/artifacts/${streamId}/op/stop`, {})).status, 409, 'nothing to stop');
    assert.deepEqual(await ffmpegChildren(), [], 'no ffmpeg outlives its session');
    // The key is never returned nor logged.
    assert.ok(!JSON.stringify(stopped.body).includes(key));
    assert.ok(!platform.logs.join('').includes(key), 'the key is not in the logs');
  });

  it('goes on after its worker stops mid-session: the recording resumes on a worker, the next publish is a new take', async () => {
    const started = await admin.post(`/artifacts/${streamId}/op/start`, {});
    assert.equal(started.status, 200, started.text);
    const first = await publish(`${started.body.ingest_url}/${key}`, 3);
    assert.equal(first.code, 0, first.stderr);
    const before = await eventually(
      async () => {
        const s = (await admin.get(`/artifacts/${streamId}/status`)).body;
        return s.counts.metadata === 1 && s.state === 'listening' ? s : null;
      },
      30_000,
      'take 1 recorded',
    );
    await platform.stopWorker();
    assert.deepEqual(await ffmpegChildren(), [], 'the stopped worker left no ffmpeg');
    await platform.startWorker();
    const resumed = await eventually(
      async () => {
        const s = (await admin.get(`/artifacts/${streamId}/status`)).body;
        return s.state === 'listening' && s.updated_at > before.updated_at ? s : null;
      },
      60_000,
      'listening again',
    );
    assert.equal(resumed.session_id, before.session_id, 'the same session');
    // 'listening' is saved before the recorder spawns its ffmpeg: waited for, not assumed.
    await eventually(async () => (await ffmpegChildren()).length === 1, 20_000, 'one ffmpeg waiting for the next take');
    const second = await publish(`${resumed.ingest_url}/${key}`, 3);
    assert.equal(second.code, 0, second.stderr);
    const after = await eventually(
      async () => {
        const s = (await admin.get(`/artifacts/${streamId}/status`)).body;
        return s.counts.metadata === 2 && s.state === 'listening' ? s : null;
      },
      30_000,
      'take 2 recorded',
    );
    assert.equal(after.counts.takes, 2);
    const recorded = await platform.services.db.collection('artifacts').find({ 'context.stream.session_id': after.session_id }).toArray();
    assert.equal(recorded.length, after.counts.segments + after.counts.stills + after.counts.metadata, 'each file once');
    assert.deepEqual([...new Set(recorded.map((a) => a.context.stream.take))].sort(), [1, 2]);
    assert.equal((await admin.post(`/artifacts/${streamId}/op/stop`, {})).status, 200);
  });

  it('can be stopped once the stream is archived', async () => {
    const id = (await createStream(config(), 'Archived, then stopped')).body.id;
    const started = await admin.post(`/artifacts/${id}/op/start`, {});
    assert.equal(started.status, 200, started.text);
    assert.equal((await admin.post(`/artifacts/${id}/manage`, { action: 'archive' })).status, 200);
    const stopped = await admin.post(`/artifacts/${id}/op/stop`, {});
    assert.equal(stopped.status, 200, stopped.text);
    assert.equal(stopped.body.state, 'ended');
  });

  it('stops at the next publish, recording nothing, once the stream is archived', async () => {
    const created = await createStream(config(), 'Archived midway');
    const id = created.body.id;
    const started = await admin.post(`/artifacts/${id}/op/start`, {});
    assert.equal(started.status, 200, started.text);
    assert.equal((await admin.post(`/artifacts/${id}/manage`, { action: 'archive' })).status, 200);
    await publish(`${started.body.ingest_url}/${key}`, 3);
    const failed = await eventually(
      async () => {
        const s = (await admin.get(`/artifacts/${id}/status`)).body;
        return s.state === 'failed' ? s : null;
      },
      30_000,
      'the session failed',
    );
    assert.match(failed.error, /is gone from workspace/);
    assert.equal(failed.counts.segments + failed.counts.stills + failed.counts.metadata, 0);
    assert.equal(await platform.services.db.collection('artifacts').countDocuments({ 'context.stream.id': id }), 0);
    assert.deepEqual(await ffmpegChildren(), []);
  });

  it('pulls a source the platform may reach, refuses one it may not, and records it', async () => {
    const privateSource = await createStream(config({ source: { mode: 'pull', url: 'rtmp://10.20.30.40/live' } }), 'Private');
    assert.equal(privateSource.status, 201, privateSource.text);
    const refused = await admin.post(`/artifacts/${privateSource.body.id}/op/start`, {});
    assert.equal(refused.status, 409, refused.text);
    assert.match(refused.body.type, /stream-source-refused$/);
    assert.match(refused.body.detail, /private/);

    const port = await freeLoopbackPort();
    const sourceKey = `source-${randomBytes(6).toString('hex')}`;
    const secret = await admin.post('/secrets', { name: 'source key', value: sourceKey });
    const serving = publish(`rtmp://127.0.0.1:${port}/live/${sourceKey}`, 5, { serve: true });
    const pulled = await createStream(
      config({ source: { mode: 'pull', url: `rtmp://127.0.0.1:${port}/live` }, key_secret_id: secret.body.id }),
      'Pulled',
    );
    const started = await admin.post(`/artifacts/${pulled.body.id}/op/start`, {});
    assert.equal(started.status, 200, started.text);
    assert.ok(['connecting', 'receiving'].includes(started.body.state), started.text);
    assert.equal(started.body.ingest_url, null, 'a pulled stream has no ingest URL');
    assert.equal((await serving).code, 0, 'the source served the platform');
    const status = await eventually(
      async () => {
        const s = (await admin.get(`/artifacts/${pulled.body.id}/status`)).body;
        return s.counts.metadata === 1 ? s : null;
      },
      30_000,
      'the pulled take recorded',
    );
    assert.ok(status.counts.segments >= 1 && status.counts.stills >= 1, JSON.stringify(status.counts));
    const meta = JSON.parse((await admin.get(`/artifacts/${status.recorded.metadata[0]}`)).body.content);
    assert.equal(meta.media.video.width, 160);
    // The source is gone: the session says so and tries again, until stopped.
    await eventually(async () => ((await admin.get(`/artifacts/${pulled.body.id}/status`)).body.state === 'connecting' ? true : null));
    const stopped = await admin.post(`/artifacts/${pulled.body.id}/op/stop`, {});
    assert.equal(stopped.body.state, 'ended', stopped.text);
    assert.ok(!platform.logs.join('').includes(sourceKey), 'the source key is not in the logs');
    assert.ok(!JSON.stringify(stopped.body).includes(sourceKey));
    assert.deepEqual(await ffmpegChildren(), []);
  });
});
