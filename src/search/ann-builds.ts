import { AnnIndex } from './ann-index.js';

/** Vectors added to an HNSW index per step: about 30 ms of the event loop on two cores. */
const stepSize = 256;

/**
 * An HNSW index being filled from vectors already held exactly, a step at a time, so that building
 * one (100,000 vectors take 10–20 s) never holds the event loop: until `ready`, its owner answers by
 * the exact scan. A vector written meanwhile goes in at once unless it is still waiting its turn (its
 * turn reads the latest); a removed one leaves either way.
 */
export class AnnBuild {
  readonly ann: AnnIndex;
  private readonly pending: Set<string>;

  constructor(
    dimensions: number,
    ids: Iterable<string>,
    private readonly vectorOf: (id: string) => Float32Array | undefined,
  ) {
    this.ann = new AnnIndex(dimensions);
    this.pending = new Set(ids);
  }

  get ready(): boolean {
    return this.pending.size === 0;
  }

  upsert(id: string, vector: Float32Array): void {
    if (!this.pending.has(id)) this.ann.upsert(id, vector);
  }

  remove(id: string): void {
    this.pending.delete(id);
    this.ann.remove(id);
  }

  /** Adds the next vectors; true once every one is in. */
  step(): boolean {
    const ids: string[] = [];
    const vectors: Float32Array[] = [];
    for (const id of this.pending) {
      this.pending.delete(id);
      const v = this.vectorOf(id);
      if (!v) continue;
      ids.push(id);
      vectors.push(v);
      if (ids.length === stepSize) break;
    }
    if (ids.length > 0) {
      const matrix = new Float32Array(ids.length * vectors[0]!.length);
      vectors.forEach((v, i) => matrix.set(v, i * v.length));
      this.ann.addMany(ids, matrix);
    }
    return this.ready;
  }
}

/**
 * Runs the HNSW builds of one search index a step per turn of the event loop, in the order they
 * were asked for. `drain` finishes them at once (a bulk load that has nothing else to do, tests).
 */
export class AnnScheduler {
  private readonly queue: { build: AnnBuild; done: () => void }[] = [];
  private timer: NodeJS.Immediate | null = null;
  private stopped = false;
  private waiting: ((built: boolean) => void)[] = [];

  schedule(build: AnnBuild, done: () => void = () => {}): void {
    this.queue.push({ build, done });
    this.kick();
  }

  /** A build no longer wanted (its vectors went elsewhere): no more steps for it. */
  cancel(build: AnnBuild): void {
    const at = this.queue.findIndex((q) => q.build === build);
    if (at >= 0) this.queue.splice(at, 1);
    this.settle();
  }

  /** No more steps: the index is being dropped or the process stops. */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearImmediate(this.timer);
    this.timer = null;
    this.settle();
  }

  get idle(): boolean {
    return this.queue.length === 0;
  }

  /** Resolves once every build asked for so far is done (true), or the scheduler stopped (false). */
  whenIdle(): Promise<boolean> {
    if (this.stopped) return Promise.resolve(false);
    if (this.idle) return Promise.resolve(true);
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  drain(): void {
    while (!this.stopped && this.queue.length > 0) this.runStep();
    this.settle();
  }

  private kick(): void {
    if (this.timer || this.stopped) return;
    this.timer = setImmediate(() => {
      this.timer = null;
      this.runStep();
      if (this.queue.length > 0) this.kick();
      else this.settle();
    });
  }

  private runStep(): void {
    const head = this.queue[0];
    if (head && head.build.step()) {
      this.queue.shift();
      head.done();
    }
  }

  private settle(): void {
    if (!this.idle && !this.stopped) return;
    for (const resolve of this.waiting.splice(0)) resolve(!this.stopped);
  }
}
