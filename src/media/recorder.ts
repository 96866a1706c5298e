// A recording session on the ingest listener: take after take (one per accepted publish), each an
// ffmpeg that writes MPEG-TS segments (stream copy: any codec RTMP carries, no transcoding) and, when
// asked, JPEG stills into the take's own directory. Finished files are handed on as they appear;
// nothing outlives `record`: every ffmpeg is stopped and awaited before it returns or throws.
import { mkdir, readdir, readFile, rm, stat, unlink } from 'node:fs/promises';
import type net from 'node:net';
import { join } from 'node:path';
import { connectWhenListening, freeLoopbackPort, gate, nextConnection, setServing } from './rtmp-ingest.js';
import { spawnMedia, type MediaProcess } from './process.js';

export interface RecordPlan {
  segmentSeconds: number;
  /** null: no stills. */
  stillEverySeconds: number | null;
}

export interface RecordedFile {
  take: number;
  kind: 'segment' | 'still';
  /** Its name in the take, e.g. seg-000003.ts: with the take, what makes it unique in a session. */
  name: string;
  path: string;
  bytes: number;
  /** Segments: where it starts and ends in the take, in seconds. */
  start?: number;
  end?: number;
}

export interface TakeSummary {
  take: number;
  segments: number;
  stills: number;
  /** The take's recorded length: its segments' durations added up. */
  seconds: number;
  /** The first segment's path, for a probe of codecs and resolution (null: no segment was written). */
  firstSegment: string | null;
  /** ffmpeg's error lines when it did not end cleanly (the key redacted). */
  error: string | null;
}

export interface RecorderEvents {
  receiving(take: number, remote: string): Promise<void>;
  /** The publisher left; the session listens again. */
  listening(): Promise<void>;
  refused(reason: string, remote: string): Promise<void>;
  file(file: RecordedFile): Promise<void>;
  takeEnded(summary: TakeSummary): Promise<void>;
}

const segmentPattern = /^seg-\d{6}\.ts$/;
const stillPattern = /^still-\d{6}\.jpg$/;
const pollMs = 1000;
const firstSegmentName = 'seg-000000.ts';

/** ffmpeg's arguments for one take: listen once on loopback `port`, write into the working directory. */
export function takeArgs(port: number, plan: RecordPlan): string[] {
  const args = [
    '-hide_banner',
    '-nostdin',
    '-nostats',
    // Errors only: a warning line would carry the stream name the publisher sent.
    '-loglevel',
    'error',
    '-listen',
    '1',
    // Seconds to wait for the gate's connection: a recorder whose worker died never waits forever.
    '-timeout',
    '20',
    '-i',
    `rtmp://127.0.0.1:${port}/live/stream`,
    '-map',
    '0',
    '-c',
    'copy',
    '-f',
    'segment',
    '-segment_time',
    String(plan.segmentSeconds),
    '-segment_format',
    'mpegts',
    '-reset_timestamps',
    '1',
    '-segment_list',
    'segments.csv',
    '-segment_list_type',
    'csv',
    '-segment_list_flags',
    '+live',
    'seg-%06d.ts',
  ];
  if (plan.stillEverySeconds !== null)
    args.push(
      '-map',
      '0:v:0?',
      '-vf',
      `fps=1/${plan.stillEverySeconds}`,
      '-q:v',
      '5',
      '-f',
      'image2',
      // Written to a temporary name and renamed: a still seen in the directory is whole.
      '-atomic_writing',
      '1',
      'still-%06d.jpg',
    );
  return args;
}

/** Segments the list says are closed, in order. */
async function closedSegments(dir: string): Promise<{ name: string; start: number; end: number }[]> {
  let text: string;
  try {
    text = await readFile(join(dir, 'segments.csv'), 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .map((line) => line.trim().split(','))
    .filter((f) => f.length === 3 && segmentPattern.test(f[0]!))
    .map(([name, start, end]) => ({ name: name!, start: Number(start), end: Number(end) }));
}

/** Finished files of a take not handed on yet. */
async function sweep(dir: string, take: number, seen: Set<string>): Promise<RecordedFile[]> {
  const found: RecordedFile[] = [];
  for (const s of await closedSegments(dir)) {
    if (seen.has(s.name)) continue;
    const path = join(dir, s.name);
    const bytes = (await stat(path).catch(() => null))?.size;
    if (bytes === undefined) continue;
    found.push({ take, kind: 'segment', name: s.name, path, bytes, start: s.start, end: s.end });
  }
  const stills = (await readdir(dir).catch(() => [] as string[])).filter((n) => stillPattern.test(n) && !seen.has(n)).sort();
  for (const name of stills) {
    const path = join(dir, name);
    const bytes = (await stat(path).catch(() => null))?.size;
    if (bytes !== undefined) found.push({ take, kind: 'still', name, path, bytes });
  }
  return found;
}

/**
 * Records on `server` until `signal` aborts: waits for a publisher with the right key, records its
 * take, and waits again. `firstTake` numbers the takes (a retried attempt goes on from its last).
 */
export async function record(options: {
  server: net.Server;
  key: string;
  plan: RecordPlan;
  workDir: string;
  ffmpegPath: string;
  firstTake: number;
  signal: AbortSignal;
  events: RecorderEvents;
}): Promise<void> {
  const { server, key, plan, workDir, ffmpegPath, signal, events } = options;
  let attempt = 0;
  let deaths = 0;
  let take = options.firstTake;
  let proc: MediaProcess | null = null;
  try {
    while (!signal.aborted) {
      const dir = join(workDir, `try-${++attempt}`);
      await mkdir(dir, { recursive: true });
      const port = await freeLoopbackPort();
      proc = spawnMedia(ffmpegPath, takeArgs(port, plan), { redact: [key], cwd: dir });
      const upstream = await connectWhenListening(port, 10_000, signal);
      if (!upstream) {
        const { stderr } = await stopped(proc);
        proc = null;
        await rm(dir, { recursive: true, force: true });
        if (signal.aborted) return;
        throw new Error(`ffmpeg did not listen for the recording: ${stderr.trim().slice(-500) || 'no output'}`);
      }
      upstream.on('error', () => {}); // its 'close' is what counts
      // An ffmpeg that dies while nobody publishes is replaced before a publisher meets it.
      const upstreamGone = new AbortController();
      upstream.once('close', () => upstreamGone.abort());
      const client = await nextConnection(server, AbortSignal.any([signal, upstreamGone.signal]));
      const outcome = client ? await gate(client, key, upstream, signal) : 'aborted';
      if (outcome !== 'accepted') {
        // Whatever reached this ffmpeg (a refused publisher's handshake) is thrown away with it.
        client?.destroy();
        upstream.destroy();
        if (typeof outcome === 'object') await events.refused(outcome.reason, `${client!.remoteAddress}:${client!.remotePort}`);
        const { stderr } = await stopped(proc);
        proc = null;
        await rm(dir, { recursive: true, force: true });
        if (!client && !signal.aborted) {
          // ffmpeg went away on its own: say why, and do not spin if it keeps doing so.
          if (++deaths > 5) throw new Error(`ffmpeg keeps stopping: ${stderr.trim().slice(-500) || 'no output'}`);
          await new Promise((r) => setTimeout(r, 1000));
        }
        continue;
      }
      take++;
      deaths = 0;
      setServing(server, true);
      await events.receiving(take, `${client!.remoteAddress}:${client!.remotePort}`);
      const seen = new Set<string>();
      const hand = async () => {
        for (const file of await sweep(dir, take, seen)) {
          await events.file(file);
          seen.add(file.name);
          // Kept as an artifact now: off the disk, but for the first segment, which the take's probe reads.
          if (file.name !== firstSegmentName) await unlink(file.path).catch(() => {});
        }
      };
      // Until the publisher leaves (ffmpeg ends its input) or the session ends (the connection is cut,
      // so ffmpeg closes its files as at the end of a stream).
      const ended = proc.exited;
      const running = proc;
      const onAbort = () => {
        client!.destroy();
        upstream.end();
        // ffmpeg closes its files on the end of its input; one that does not is stopped (SIGTERM, then SIGKILL).
        setTimeout(() => void running.stop(), 5000).unref();
      };
      signal.addEventListener('abort', onAbort, { once: true });
      let exit: Awaited<MediaProcess['exited']> | null = null;
      while (!exit) {
        exit = await Promise.race([ended, new Promise<null>((r) => setTimeout(() => r(null), pollMs))]);
        await hand();
      }
      signal.removeEventListener('abort', onAbort);
      client!.destroy();
      setServing(server, false);
      proc = null;
      await hand();
      const segments = await closedSegments(dir);
      const clean = exit.code === 0 || segments.length > 0;
      await events.takeEnded({
        take,
        segments: segments.length,
        seconds: segments.reduce((sum, s) => sum + Math.max(0, s.end - s.start), 0),
        stills: [...seen].filter((n) => stillPattern.test(n)).length,
        firstSegment: segments.some((s) => s.name === firstSegmentName) ? join(dir, firstSegmentName) : null,
        error: clean ? null : exit.stderr.trim().slice(-1000) || `ffmpeg exited with ${exit.code ?? exit.signal}`,
      });
      await rm(dir, { recursive: true, force: true });
      if (!signal.aborted) await events.listening();
    }
  } finally {
    if (proc) await proc.stop();
  }
}

/** Stops the process (if still running) and answers how it ended. */
async function stopped(proc: MediaProcess) {
  await proc.stop();
  return proc.exited;
}
