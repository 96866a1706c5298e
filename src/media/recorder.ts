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
  /** When the session ends (ms since the epoch): no ffmpeg reads its input past it, whatever befalls the worker. */
  endsBy?: number;
}

/** ffmpeg's input option that stops reading at the session's end (at least a second: `-t 0` would mean nothing). */
function untilEnd(plan: RecordPlan): string[] {
  if (plan.endsBy === undefined) return [];
  return ['-t', String(Math.max(1, Math.ceil((plan.endsBy - Date.now()) / 1000)))];
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
  return [
    ...quiet,
    '-listen',
    '1',
    // Seconds to wait for the gate's connection: a recorder whose worker died never waits forever.
    '-timeout',
    '20',
    ...untilEnd(plan),
    '-i',
    `rtmp://127.0.0.1:${port}/live/stream`,
    ...outputArgs(plan),
  ];
}

/** ffmpeg's arguments for one pull of `source` (the checked address, the key as the stream name). */
export function pullArgs(source: string, plan: RecordPlan): string[] {
  // A source that stops sending for 15 s ends the take (its files are kept); the session connects again.
  return [...quiet, '-rw_timeout', '15000000', ...untilEnd(plan), '-i', source, ...outputArgs(plan)];
}

// Errors only: a warning line would carry the stream name (the key).
const quiet = ['-hide_banner', '-nostdin', '-nostats', '-loglevel', 'error'];

/** Segments (stream copy into MPEG-TS, listed as they close) and, when asked, JPEG stills. */
function outputArgs(plan: RecordPlan): string[] {
  const args = [
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
  /** Reserves the next take's number (the session's record: attempts never share one); else firstTake counts up. */
  nextTake?: () => Promise<number>;
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
      const exited = new AbortController();
      void proc.exited.then(() => exited.abort());
      const upstream = await connectWhenListening(port, 10_000, AbortSignal.any([signal, exited.signal]));
      if (!upstream) {
        const { stderr } = await stopped(proc);
        proc = null;
        await rm(dir, { recursive: true, force: true });
        if (signal.aborted) return;
        // It exited, or never listened: tried again a few times, then the session fails saying why.
        if (++deaths > 5) throw new Error(`ffmpeg did not listen for the recording: ${stderr.trim().slice(-500) || 'no output'}`);
        await new Promise((r) => setTimeout(r, 1000));
        continue;
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
      take = options.nextTake ? await options.nextTake() : take + 1;
      deaths = 0;
      setServing(server, true);
      await events.receiving(take, `${client!.remoteAddress}:${client!.remotePort}`);
      await runTake(take, dir, proc, signal, events, () => {
        client!.destroy();
        upstream.end();
      });
      client!.destroy();
      setServing(server, false);
      proc = null;
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

/**
 * One take's recording, from ffmpeg's start to its exit: finished files handed on as they appear,
 * then the take's summary. On `signal`, `cut` ends ffmpeg's input (it closes its files as at the end
 * of a stream); one that does not exit is stopped (SIGTERM, then SIGKILL).
 */
async function runTake(take: number, dir: string, proc: MediaProcess, signal: AbortSignal, events: RecorderEvents, cut: () => void) {
  const seen = new Set<string>();
  const hand = async () => {
    for (const file of await sweep(dir, take, seen)) {
      await events.file(file);
      seen.add(file.name);
      // Kept as an artifact now: off the disk, but for the first segment, which the take's probe reads.
      if (file.name !== firstSegmentName) await unlink(file.path).catch(() => {});
    }
  };
  const onAbort = () => {
    cut();
    setTimeout(() => void proc.stop(), 5000).unref();
  };
  signal.addEventListener('abort', onAbort, { once: true });
  let exit: Awaited<MediaProcess['exited']> | null = null;
  try {
    while (!exit) {
      exit = await Promise.race([proc.exited, new Promise<null>((r) => setTimeout(() => r(null), pollMs))]);
      await hand();
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
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
}

/**
 * Pulls `source` (an rtmp(s) URL on a checked address, resolved afresh by `resolve` before every
 * connection) until `signal` aborts: each connection that brings media is a take; when the source ends
 * or cannot be reached, the session tries again after `retryMs`.
 */
export async function recordPull(options: {
  resolve: () => Promise<string>;
  redact: string[];
  plan: RecordPlan;
  workDir: string;
  ffmpegPath: string;
  firstTake: number;
  nextTake?: () => Promise<number>;
  signal: AbortSignal;
  events: RecorderEvents & { unreachable(message: string): Promise<void> };
  retryMs?: number;
}): Promise<void> {
  const { plan, workDir, ffmpegPath, signal, events } = options;
  let attempt = 0;
  let take = options.firstTake;
  let proc: MediaProcess | null = null;
  try {
    while (!signal.aborted) {
      const dir = join(workDir, `pull-${++attempt}`);
      await mkdir(dir, { recursive: true });
      let source: string;
      try {
        source = await options.resolve();
      } catch (err) {
        await events.unreachable((err as Error).message);
        await rm(dir, { recursive: true, force: true });
        await abortable(options.retryMs ?? 5000, signal);
        continue;
      }
      const redact = [...options.redact, source];
      proc = spawnMedia(ffmpegPath, pullArgs(source, plan), { redact, cwd: dir });
      const running = proc;
      // A take begins with its first finished file: a source that sends nothing is no take.
      let began = false;
      const next = take + 1;
      await runTake(
        next,
        dir,
        running,
        signal,
        {
          ...events,
          // The take's number is reserved once it brings media (a connection that brings none is no take).
          file: async (file) => {
            if (!began) {
              began = true;
              take = options.nextTake ? await options.nextTake() : next;
              await events.receiving(take, 'source');
            }
            await events.file({ ...file, take });
          },
          takeEnded: async (summary) => {
            if (began || summary.segments > 0) {
              if (!began) take = options.nextTake ? await options.nextTake() : next;
              await events.takeEnded({ ...summary, take });
            }
          },
        },
        () => void running.stop(),
      );
      const { stderr, code } = await running.exited;
      proc = null;
      await rm(dir, { recursive: true, force: true });
      if (signal.aborted) break;
      await events.unreachable(
        code === 0 ? 'The source ended; connecting again.' : stderr.trim().slice(-500) || `ffmpeg exited with ${code}`,
      );
      await abortable(options.retryMs ?? 5000, signal);
    }
  } finally {
    if (proc) await proc.stop();
  }
}

const abortable = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
