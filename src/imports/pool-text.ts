// Reading threads for uploads (./thread-text.ts): a PDF's text per page by pdf.js, an HTML page's
// Markdown by turndown, one file per thread at a time. Three bounds, each ending the thread (neither
// library can be interrupted any other way) and failing the read: a deadline; the thread's V8 heap
// limit; and the process's resident memory, watched while files are read, because pdf.js inflates a
// content stream whole into buffers outside the heap (a 300 KB PDF can inflate to gigabytes). Idle
// threads are kept for the next files (loading pdf.js costs most of a second) and never keep the
// process alive.
import { availableParallelism } from 'node:os';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { HtmlText } from './html-text.js';
import type { ThreadAnswer, ThreadRequest } from './thread-text.js';

export interface PdfText {
  /** Each page's text, in page order; lines joined by newlines, no blank lines. */
  pages: string[];
  /** The document information dictionary's Title, as written. */
  title: string | null;
  /** Encrypted without a user password (readable, as every viewer reads it). */
  encrypted: boolean;
  /** More text than maxChars: the pages past it are empty. */
  truncated: boolean;
}

/** The file could not be read; the message says why, for a person. */
export class ReadError extends Error {}

export interface ReadLimits {
  /** PDF: the most pages read. */
  maxPages: number;
  /** PDF: text past this many characters is not collected. */
  maxChars: number;
  /** How long one file may take to read once a thread has started on it. */
  deadlineMs: number;
  /** The thread's V8 heap, in MiB. */
  heapMb: number;
  /** How far the process's resident memory may grow while this file is read, in MiB. */
  memoryMb: number;
}

export const defaultReadLimits: ReadLimits = { maxPages: 5000, maxChars: 10_000_000, deadlineMs: 30_000, heapMb: 512, memoryMb: 1024 };

/** Threads reading at once; more files wait their turn (their deadline starts with their read). */
const maxThreads = Math.max(1, Math.min(4, availableParallelism()));
const watchEveryMs = 100;

interface Job {
  req: ThreadRequest;
  limits: ReadLimits;
  resolve: (answer: ThreadAnswer) => void;
  reject: (err: Error) => void;
}

let nextId = 1;
/** Threads waiting for the next file; each ends after a minute unused (a thread with pdf.js loaded
 * holds tens of MiB). */
const idle: { worker: Worker; heapMb: number; timer: NodeJS.Timeout }[] = [];
const idleMs = 60_000;
const waiting: Job[] = [];
/** The reads under way, each with the way to fail it and the process's resident memory when it began. */
const running = new Map<Job, { fail: (why: string) => void; startRss: number }>();
let watch: NodeJS.Timeout | null = null;

export async function pdfText(bytes: Uint8Array, limits: Partial<ReadLimits> = {}): Promise<PdfText> {
  const all = { ...defaultReadLimits, ...limits };
  // The copy is handed to the thread (transferred): the caller's buffer stays whole.
  const answer = await read(
    { kind: 'pdf', id: nextId++, bytes: new Uint8Array(bytes), maxPages: all.maxPages, maxChars: all.maxChars },
    all,
  );
  if ('error' in answer) throw new ReadError(answer.error.message);
  if (!('pages' in answer)) throw new ReadError('the reading thread answered something else');
  return { pages: answer.pages, title: answer.title, encrypted: answer.encrypted, truncated: answer.truncated };
}

export async function htmlText(html: string, limits: Partial<ReadLimits> = {}): Promise<HtmlText> {
  const answer = await read({ kind: 'html', id: nextId++, html }, { ...defaultReadLimits, ...limits });
  if ('error' in answer) throw new ReadError(answer.error.message);
  if (!('markdown' in answer)) throw new ReadError('the reading thread answered something else');
  return { markdown: answer.markdown, title: answer.title };
}

function read(req: ThreadRequest, limits: ReadLimits): Promise<ThreadAnswer> {
  return new Promise((resolve, reject) => {
    waiting.push({ req, limits, resolve, reject });
    pump();
  });
}

function pump(): void {
  while (running.size < maxThreads && waiting.length > 0) run(waiting.shift()!);
  if (running.size === 0 && watch) {
    clearInterval(watch);
    watch = null;
  }
}

/** While files are read, the process's growth since a read began counts against that read's budget:
 * a bomb fails its own read; one begun alongside it fails only if the growth since it began is
 * over budget too (which thread grew the process cannot be told apart). */
function watchMemory(): void {
  watch ??= setInterval(() => {
    const rss = process.memoryUsage.rss();
    for (const [job, { fail, startRss }] of [...running]) {
      if ((rss - startRss) / 2 ** 20 > job.limits.memoryMb) fail(`reading it needed more than ${job.limits.memoryMb} MiB of memory`);
    }
  }, watchEveryMs).unref();
}

function retire(entry: (typeof idle)[number]): void {
  const at = idle.indexOf(entry);
  if (at >= 0) idle.splice(at, 1);
  clearTimeout(entry.timer);
  void entry.worker.terminate();
}

function start(heapMb: number): Worker {
  const ext = extname(fileURLToPath(import.meta.url));
  const entry = new URL(`./thread-text${ext}`, import.meta.url).href;
  // Run from TypeScript sources (tsx), the thread registers tsx's loader before it imports its entry.
  const source =
    ext === '.ts'
      ? `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => tsx.register()).then(() => import(${JSON.stringify(entry)}))`
      : `import(${JSON.stringify(entry)})`;
  const worker = new Worker(source, {
    eval: true,
    workerData: { role: 'imports/reader' }, // thread-text.ts's threadMark
    resourceLimits: { maxOldGenerationSizeMb: heapMb, maxYoungGenerationSizeMb: Math.min(64, heapMb / 4) },
  });
  // A read listens for its own failure; an idle thread that fails or ends is only dropped (an
  // 'error' nobody listens to would end the process).
  worker.on('error', () => undefined);
  worker.on('exit', () => {
    const at = idle.findIndex((t) => t.worker === worker);
    if (at >= 0) clearTimeout(idle.splice(at, 1)[0]!.timer);
  });
  return worker;
}

function run(job: Job): void {
  const reused = idle.findIndex((t) => t.heapMb === job.limits.heapMb);
  const kept = reused >= 0 ? idle.splice(reused, 1)[0] : undefined;
  if (kept) clearTimeout(kept.timer);
  const worker = kept?.worker ?? start(job.limits.heapMb);
  worker.ref();
  const finish = (keep: boolean, result: () => void) => {
    if (!running.has(job)) return;
    running.delete(job);
    clearTimeout(timer);
    worker.off('message', onMessage);
    worker.off('error', onError);
    worker.off('exit', onExit);
    if (keep) {
      worker.unref();
      const entry = { worker, heapMb: job.limits.heapMb, timer: setTimeout(() => retire(entry), idleMs).unref() };
      idle.push(entry);
      while (idle.length > maxThreads) retire(idle[0]!);
    } else {
      void worker.terminate();
    }
    result();
    pump();
  };
  const fail = (why: string) => finish(false, () => job.reject(new ReadError(why)));
  const onMessage = (answer: ThreadAnswer) => {
    if (answer.id === job.req.id) finish(true, () => job.resolve(answer));
  };
  const onError = (err: Error) =>
    fail(
      (err as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY'
        ? `reading it needed more than ${job.limits.heapMb} MiB of heap`
        : `reading it failed (${err.message})`,
    );
  const onExit = (code: number) => fail(`reading it stopped the reading thread (exit ${code})`);
  const timer = setTimeout(() => fail(`reading it took longer than ${job.limits.deadlineMs} ms`), job.limits.deadlineMs);
  running.set(job, { fail, startRss: process.memoryUsage.rss() });
  watchMemory();
  worker.on('message', onMessage);
  worker.on('error', onError);
  worker.on('exit', onExit);
  worker.postMessage(job.req, job.req.kind === 'pdf' ? [job.req.bytes.buffer as ArrayBuffer] : []);
}
