// A worker killed without warning in the middle of a stream session (issue #36): the ffmpeg it ran
// does not outlive it (its one connection, to the dead worker's gate, is closed by the kernel, and it
// exits), and once a worker is back the session listens again and records the next publish.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { eventually, type Api } from '../helpers/http.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';
import { workerProcess } from '../helpers/worker-process.js';
import { publish } from './publisher.js';

const ports = { STREAM_PORTS: '25935-25960', STREAM_PULL_ALLOW: '127.0.0.0/8' };
let platform: TestPlatform;
let admin: Api;
let worker: ChildProcess | undefined;

before(async () => {
  platform = await startPlatform(ports, { worker: false });
  admin = await platform.admin();
});
after(async () => {
  worker?.kill('SIGKILL');
  await platform?.close();
});

const ffmpegOf = (pid: number): number[] => {
  try {
    return execFileSync('pgrep', ['-P', String(pid), 'ffmpeg'], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .map(Number);
  } catch {
    return []; // pgrep exits 1 when there is none
  }
};
/** Running, or stopped: not gone and not a zombie (an orphan's zombie waits for PID 1 to reap it). */
const alive = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
};

describe('a worker killed during a stream session', () => {
  it('leaves no ffmpeg behind, and the session goes on on the next worker', async () => {
    const ws = (await admin.post('/workspaces', { name: 'crash' })).body.id;
    const key = randomBytes(16).toString('hex');
    const secret = (await admin.post('/secrets', { name: 'key', value: key })).body.id;
    const stream = await admin.post('/artifacts', {
      title: 'Camera',
      content_type: 'application/vnd.platform.stream+json',
      content: JSON.stringify({ source: { mode: 'push' }, key_secret_id: secret, record: { stills: { every_seconds: 1 } } }),
      collection_id: ws,
    });
    const id = stream.body.id;
    worker = await workerProcess(platform, ports);
    const started = await admin.post(`/artifacts/${id}/op/start`, {});
    assert.equal(started.status, 200, started.text);
    const recorder = await eventually(async () => ffmpegOf(worker!.pid!)[0], 10_000, "the worker's ffmpeg");

    worker.kill('SIGKILL');
    // Killed with the worker (setpriv's parent-death signal), whether or not the worker's gate had
    // joined it yet; without setpriv its input closes with the worker, or its listen timeout (20 s) ends it.
    await eventually(async () => !alive(recorder), 25_000, 'the orphaned ffmpeg exits');

    worker = await workerProcess(platform, ports);
    // The killed attempt's heartbeat times out (10 s); the retry listens again.
    const resumed = await eventually(
      async () => {
        const s = (await admin.get(`/artifacts/${id}/status`)).body;
        return s.state === 'listening' && s.updated_at > started.body.updated_at && ffmpegOf(worker!.pid!).length === 1 ? s : null;
      },
      60_000,
      'listening again',
    );
    assert.equal((await publish(`${resumed.ingest_url}/${key}`, 3)).code, 0);
    const recorded = await eventually(
      async () => {
        const s = (await admin.get(`/artifacts/${id}/status`)).body;
        return s.counts.metadata === 1 ? s : null;
      },
      30_000,
      'the publish recorded',
    );
    assert.ok(recorded.counts.stills >= 1, JSON.stringify(recorded.counts));
    assert.equal((await admin.post(`/artifacts/${id}/op/stop`, {})).status, 200);
    await eventually(async () => ffmpegOf(worker!.pid!).length === 0, 10_000, 'no ffmpeg after the stop');
  });

  it('takes a pulling ffmpeg with it mid-take (its input is the source, not the worker)', async () => {
    worker?.kill('SIGKILL');
    const ws = (await admin.post('/workspaces', { name: 'crash pull' })).body.id;
    const sourceKey = randomBytes(8).toString('hex');
    const secret = (await admin.post('/secrets', { name: 'source key', value: sourceKey })).body.id;
    const port = 25971;
    const serving = publish(`rtmp://127.0.0.1:${port}/live/${sourceKey}`, 30, { serve: true });
    const stream = await admin.post('/artifacts', {
      title: 'Pulled camera',
      content_type: 'application/vnd.platform.stream+json',
      content: JSON.stringify({
        source: { mode: 'pull', url: `rtmp://127.0.0.1:${port}/live` },
        key_secret_id: secret,
        record: { segments: { seconds: 2 } },
      }),
      collection_id: ws,
    });
    assert.equal(stream.status, 201, stream.text);
    const id = stream.body.id;
    worker = await workerProcess(platform, ports);
    assert.equal((await admin.post(`/artifacts/${id}/op/start`, {})).status, 200);
    await eventually(async () => (await admin.get(`/artifacts/${id}/status`)).body.state === 'receiving', 30_000, 'a take under way');
    const puller = ffmpegOf(worker.pid!)[0];
    assert.ok(puller, 'the pulling ffmpeg');
    worker.kill('SIGKILL');
    worker = undefined;
    // The source still sends: only the parent-death signal can end the puller (bounded polling).
    await eventually(async () => !alive(puller), 10_000, 'the pulling ffmpeg dies with its worker');
    await serving; // the source ends once nobody pulls
  });
});
