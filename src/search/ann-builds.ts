import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { AnnIndex, hnswOptions } from './ann-index.js';

/** What a build thread is given: the vectors (transferred, not copied), their keys, and where to save. */
interface BuildInput {
  module: string;
  options: ReturnType<typeof hnswOptions>;
  keys: BigUint64Array;
  matrix: Float32Array;
  path: string;
}

// A plain CommonJS thread: usearch's native module loads there through require (its ESM entry does not).
// It builds with one thread of usearch's own, at the lowest priority: a build leaves the other core,
// and what CPU requests want, to the requests.
const threadSource = `
const { parentPort, workerData } = require('node:worker_threads');
const { module, options, keys, matrix, path } = workerData;
// The lowest CPU priority, for this thread alone on Linux (setpriority on pid 0 is per thread there):
// a build takes the CPU only when requests leave it.
try { require('node:os').setPriority(0, 19); } catch {}
const usearch = require(module);
const index = new usearch.Index(options);
if (keys.length > 0) index.add(keys, matrix, 1);
index.save(path);
parentPort.postMessage('saved');
`;

const usearchModule = createRequire(import.meta.url).resolve('usearch');

/**
 * An HNSW index to be built from vectors already held exactly. Building takes 20–40 s per 100,000
 * vectors on one core, so it runs on a thread of its own and the index is loaded from its file when
 * done (milliseconds); until `ready`, its owner answers by the exact scan. Writes before the vectors
 * are taken are read with them; writes after are laid over the loaded index, each id as it is then
 * (`vectorOf`: undefined once it is gone or no longer this index's).
 */
export class AnnBuild {
  private ann_: AnnIndex;
  private pending: Set<string> | null;
  private readonly changed = new Set<string>();
  private ready_ = false;

  constructor(
    dimensions: number,
    ids: Iterable<string>,
    private readonly vectorOf: (id: string) => Float32Array | undefined,
  ) {
    this.ann_ = new AnnIndex(dimensions);
    this.pending = new Set(ids);
  }

  get ann(): AnnIndex {
    return this.ann_;
  }

  get ready(): boolean {
    return this.ready_;
  }

  upsert(id: string, vector: Float32Array): void {
    if (this.ready_) this.ann.upsert(id, vector);
    else if (this.pending) this.pending.add(id);
    else this.changed.add(id);
  }

  remove(id: string): void {
    if (this.ready_) this.ann.remove(id);
    else if (this.pending) this.pending.delete(id);
    else this.changed.add(id);
  }

  /** The vectors to build from, as they are now, under the keys the index will answer with. */
  take(): { keys: BigUint64Array; matrix: Float32Array } {
    const ids: string[] = [];
    const vectors: Float32Array[] = [];
    for (const id of this.pending ?? []) {
      const v = this.vectorOf(id);
      if (!v) continue;
      ids.push(id);
      vectors.push(v);
    }
    this.pending = null;
    const d = this.ann.dimensions;
    const matrix = new Float32Array(ids.length * d);
    vectors.forEach((v, i) => matrix.set(v, i * d));
    return { keys: this.ann.assignKeys(ids), matrix };
  }

  /** After the built index is in: the writes made meanwhile. */
  finish(): void {
    for (const id of this.changed) {
      const v = this.vectorOf(id);
      if (v) this.ann.upsert(id, v);
      else this.ann.remove(id);
    }
    this.changed.clear();
    this.ready_ = true;
  }

  /** Builds on this thread, holding it (tests, benchmarks). */
  buildHere(): void {
    const { keys, matrix } = this.take();
    this.ann.addWithKeys(keys, matrix);
    this.finish();
  }

  /**
   * Back to before `take`, for a build whose thread failed or was dropped: every id it took or was
   * told of since is read again when it is next taken.
   */
  restart(): void {
    if (this.ready_ || this.pending) return;
    const ids = new Set([...[...this.ann_.entries()].map(([id]) => id), ...this.changed]);
    this.ann_ = new AnnIndex(this.ann_.dimensions);
    this.changed.clear();
    this.pending = ids;
  }
}

/**
 * Runs the HNSW builds of one search index, one at a time, each on a thread of its own, in the order
 * they were asked for. `drain` builds what is left at once, on this thread.
 */
export class AnnScheduler {
  private readonly queue: AnnBuild[] = [];
  private running: { build: AnnBuild; worker: Worker; removeDir: () => void } | null = null;
  private stopped = false;
  private waiting: ((built: boolean) => void)[] = [];

  /** `thread`: the build thread's source (tests give a failing one). */
  constructor(
    private readonly onThreadError: (err: Error) => void = () => {},
    private readonly thread = threadSource,
  ) {}

  schedule(build: AnnBuild): void {
    this.queue.push(build);
    this.next();
  }

  /** No more builds: the index is being dropped or the process stops. */
  stop(): void {
    this.stopped = true;
    this.queue.length = 0;
    this.abandonRunning();
    this.settle();
  }

  get idle(): boolean {
    return this.queue.length === 0 && this.running === null;
  }

  /** Resolves once every build asked for so far is done (true), or the scheduler stopped (false). */
  whenIdle(): Promise<boolean> {
    if (this.stopped) return Promise.resolve(false);
    if (this.idle) return Promise.resolve(true);
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** Builds everything asked for, now, on this thread (the one running on its thread is dropped and redone). */
  drain(): void {
    if (this.running) {
      const { build } = this.running;
      this.abandonRunning();
      build.restart();
      this.queue.unshift(build);
    }
    while (!this.stopped && this.queue.length > 0) this.queue.shift()!.buildHere();
    this.settle();
  }

  private next(): void {
    if (this.running || this.stopped) return;
    const build = this.queue.shift();
    if (!build) return this.settle();
    const { keys, matrix } = build.take();
    let worker: Worker;
    let dir = '';
    try {
      // The index holds embeddings of people's content: its file lives in a directory only this user may read.
      dir = mkdtempSync(join(tmpdir(), 'platform-hnsw-'));
      const input: BuildInput = {
        module: usearchModule,
        options: hnswOptions(build.ann.dimensions),
        keys,
        matrix,
        path: join(dir, 'index.usearch'),
      };
      worker = new Worker(this.thread, {
        eval: true,
        workerData: input,
        transferList: [keys.buffer as ArrayBuffer, matrix.buffer as ArrayBuffer],
      });
    } catch (err) {
      if (dir) rmSync(dir, { recursive: true, force: true });
      return this.failed(build, err as Error);
    }
    worker.unref(); // a build never keeps the process alive…
    const removeDir = () => rmSync(dir, { recursive: true, force: true });
    process.once('exit', removeDir); // …nor leaves its file behind when the process ends first
    const running = { build, worker, removeDir };
    this.running = running;
    const done = (err: Error | null) => {
      if (this.running !== running) return; // abandoned, or answered already
      this.running = null;
      try {
        if (err) throw err;
        build.ann.load(join(dir, 'index.usearch'));
        build.finish();
      } catch (e) {
        return this.failed(build, e as Error);
      } finally {
        process.off('exit', removeDir);
        removeDir();
      }
      this.next();
    };
    worker.once('message', () => done(null));
    worker.once('error', (err) => done(err));
    worker.once('exit', (code) => done(new Error(`HNSW build thread exited with code ${code} before saving`)));
  }

  /** Its thread failed: the build is done here instead, holding this thread once, and reported. */
  private failed(build: AnnBuild, err: Error): void {
    this.onThreadError(err);
    build.restart();
    build.buildHere();
    this.next();
  }

  private abandonRunning(): void {
    if (!this.running) return;
    const { worker, removeDir } = this.running;
    this.running = null;
    void worker.terminate().finally(() => {
      process.off('exit', removeDir);
      removeDir();
    });
  }

  private settle(): void {
    if (!this.idle && !this.stopped) return;
    for (const resolve of this.waiting.splice(0)) resolve(!this.stopped);
  }
}
