// The media engine on its own (src/media/): the RTMP publish gate's parser, and a recording on a
// real ingest listener that Debian's ffmpeg publishes a generated test pattern to, on loopback. A
// publisher with a wrong key records nothing (ffmpeg's own listen mode would have recorded it).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import type { AddressInfo, Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { commandOf, PublishGate } from '../../src/media/rtmp-publish-gate.js';
import { record, recordPull, type RecordedFile, type TakeSummary } from '../../src/media/recorder.js';
import { freeLoopbackPort, listenInRange } from '../../src/media/rtmp-ingest.js';
import { probe } from '../../src/media/probe.js';
import { publish } from './publisher.js';

/** The ffmpeg processes this test process started that still run. */
function ffmpegChildren(): string[] {
  try {
    return execFileSync('pgrep', ['-P', String(process.pid), 'ffmpeg'], { encoding: 'utf8' })
      .trim()
      .split('\n');
  } catch {
    return []; // pgrep exits 1 when none
  }
}

const amfString = (s: string) => {
  const b = Buffer.alloc(3 + Buffer.byteLength(s));
  b[0] = 2;
  b.writeUInt16BE(Buffer.byteLength(s), 1);
  b.write(s, 3);
  return b;
};
const amfNumber = (n: number) => {
  const b = Buffer.alloc(9);
  b.writeDoubleBE(n, 1);
  return b;
};
/** One AMF0 command message in a single type-0 chunk on chunk stream 3. */
const commandChunk = (body: Buffer) => {
  const h = Buffer.alloc(12);
  h[0] = 3;
  h.writeUIntBE(body.length, 4, 3);
  h[7] = 20;
  return Buffer.concat([h, body]);
};
const handshake = Buffer.concat([Buffer.from([3]), Buffer.alloc(1536 * 2)]);

describe('the publish gate', () => {
  it('reads a publish command and its stream name', () => {
    const body = Buffer.concat([amfString('publish'), amfNumber(5), Buffer.from([5]), amfString('the-key'), amfString('live')]);
    assert.deepEqual(commandOf(body, false), { name: 'publish', streamName: 'the-key' });
  });

  it('forwards the handshake and a connect, holds nothing back after an accepted publish', () => {
    const gate = new PublishGate('k1');
    let r = gate.push(handshake);
    assert.equal(r.forward.length, handshake.length);
    const connect = commandChunk(Buffer.concat([amfString('connect'), amfNumber(1), Buffer.from([3, 0, 0, 9])]));
    r = gate.push(connect);
    assert.deepEqual(r.forward, connect);
    assert.equal(r.verdict.state, 'pending');
    const pub = commandChunk(Buffer.concat([amfString('publish'), amfNumber(2), Buffer.from([5]), amfString('k1')]));
    const media = Buffer.from('after the publish');
    // Split anywhere: a chunk's bytes go on only once its message is whole.
    r = gate.push(pub.subarray(0, 10));
    assert.equal(r.forward.length, 0);
    r = gate.push(Buffer.concat([pub.subarray(10), media]));
    assert.equal(r.verdict.state, 'accepted');
    assert.deepEqual(r.forward, Buffer.concat([pub, media]));
  });

  it('refuses a wrong key without forwarding it, and media before a publish', () => {
    const gate = new PublishGate('k1');
    gate.push(handshake);
    const wrong = commandChunk(Buffer.concat([amfString('FCPublish'), amfNumber(2), Buffer.from([5]), amfString('k2')]));
    const r = gate.push(wrong);
    assert.deepEqual(r.verdict, { state: 'refused', reason: 'wrong stream key' });
    assert.equal(r.forward.length, 0);
    const early = new PublishGate('k1');
    early.push(handshake);
    const video = Buffer.alloc(12 + 4);
    video[0] = 4;
    video.writeUIntBE(4, 4, 3);
    video[7] = 9;
    assert.equal(early.push(video).verdict.state, 'refused');
    assert.equal(new PublishGate('k1').push(Buffer.from('GET / HTTP/1.1\r\n')).verdict.state, 'refused');
  });
});

describe('a recording on loopback', () => {
  let server: Server;
  let dir: string;
  before(async () => {
    server = await listenInRange('127.0.0.1', 21935, 21999);
    dir = await mkdtemp(join(tmpdir(), 'recorder-test-'));
  });
  after(async () => {
    await new Promise((r) => server.close(r));
    await rm(dir, { recursive: true, force: true });
  });

  it('records segments and stills of the right key only, and stops when told', async () => {
    const port = (server.address() as AddressInfo).port;
    const files: RecordedFile[] = [];
    const takes: (TakeSummary & { probed: unknown })[] = [];
    const refusals: string[] = [];
    const states: string[] = [];
    const stop = new AbortController();
    const recording = record({
      server,
      key: 'right-key',
      plan: { segmentSeconds: 2, stillEverySeconds: 1 },
      workDir: dir,
      ffmpegPath: 'ffmpeg',
      firstTake: 0,
      signal: stop.signal,
      events: {
        receiving: async (take) => void states.push(`receiving ${take}`),
        listening: async () => void states.push('listening'),
        refused: async (reason) => void refusals.push(reason),
        file: async (f) => void files.push(f),
        takeEnded: async (t) => void takes.push({ ...t, probed: t.firstSegment ? await probe('ffprobe', t.firstSegment) : null }),
      },
    });
    const wrong = await publish(`rtmp://127.0.0.1:${port}/live/wrong-key`, 3);
    assert.notEqual(wrong.code, 0, 'the wrong key is refused');
    for (let i = 0; i < 50 && refusals.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(refusals, ['wrong stream key']);
    assert.equal(files.length, 0);
    // The waiting ffmpeg killed from outside: another takes its place before the publisher comes.
    await new Promise((r) => setTimeout(r, 1500)); // the refused publisher's ffmpeg gone, a new one listening
    const waiting = ffmpegChildren();
    assert.equal(waiting.length, 1, 'one ffmpeg waits');
    process.kill(Number(waiting[0]), 'SIGKILL');
    await new Promise((r) => setTimeout(r, 1500));
    const right = await publish(`rtmp://127.0.0.1:${port}/live/right-key`, 5);
    assert.equal(right.code, 0, right.stderr);
    // The take ends when ffmpeg has closed its files.
    for (let i = 0; i < 100 && takes.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
    stop.abort();
    await recording;
    assert.deepEqual(states, ['receiving 1', 'listening']);
    const segments = files.filter((f) => f.kind === 'segment');
    const stills = files.filter((f) => f.kind === 'still');
    assert.ok(segments.length >= 2, `segments: ${segments.map((s) => s.name).join(', ')}`);
    assert.ok(stills.length >= 3, `stills: ${stills.length}`);
    assert.equal(takes.length, 1);
    assert.ok(takes[0]!.seconds > 4 && takes[0]!.seconds < 7, `recorded ${takes[0]!.seconds} s`);
    assert.deepEqual((takes[0]!.probed as { video: { width: number } }).video.width, 160);
    assert.deepEqual(await readdir(dir), [], 'every take directory removed');
    assert.deepEqual(ffmpegChildren(), [], 'no ffmpeg left');
  });

  it('pulls a source: its media is a take; when it ends, the session tries again', async () => {
    const port = await freeLoopbackPort();
    const source = `rtmp://127.0.0.1:${port}/live/source-key`;
    const serving = publish(source, 4, { serve: true });
    await new Promise((r) => setTimeout(r, 500));
    const files: RecordedFile[] = [];
    const takes: TakeSummary[] = [];
    const unreachable: string[] = [];
    const stop = new AbortController();
    const pulling = recordPull({
      resolve: async () => source,
      redact: ['source-key'],
      plan: { segmentSeconds: 2, stillEverySeconds: 1 },
      workDir: dir,
      ffmpegPath: 'ffmpeg',
      firstTake: 4,
      signal: stop.signal,
      retryMs: 300,
      events: {
        receiving: async () => {},
        listening: async () => {},
        refused: async () => {},
        file: async (f) => void files.push(f),
        takeEnded: async (t) => void takes.push(t),
        unreachable: async (m) => void unreachable.push(m),
      },
    });
    assert.equal((await serving).code, 0);
    for (let i = 0; i < 100 && unreachable.length < 2; i++) await new Promise((r) => setTimeout(r, 100));
    stop.abort();
    await pulling;
    assert.equal(takes.length, 1, 'one take: the retries found no source');
    assert.equal(takes[0]!.take, 5, 'numbered on from the first take given');
    assert.ok(takes[0]!.segments >= 1 && files.some((f) => f.kind === 'still'), JSON.stringify(takes[0]));
    assert.equal(unreachable[0], 'The source ended; connecting again.');
    assert.ok(!unreachable.join('').includes('source-key'), 'the key is redacted');
    assert.deepEqual(ffmpegChildren(), []);
  });
});
