import usearch, { type Index as UsearchIndex } from 'usearch';
import { insertTopK, type Ranked } from './rrf-fusion.js';

/** How many approximate neighbours are fetched to find k in scope. */
export const annFetch = (k: number) => k * 4 + 50;

/** Whether a candidate may be found. */
export type Accept = (id: string) => boolean;

/**
 * Exact k-nearest-neighbour search over unit vectors (cosine = dot product), in one contiguous
 * Float32Array. Removal swaps the last vector into the hole, so the matrix stays dense.
 */
export class ExactVectorIndex {
  private data: Float32Array;
  private ids: string[] = [];
  private readonly slot = new Map<string, number>();

  constructor(
    readonly dimensions: number,
    capacity = 8,
  ) {
    this.data = new Float32Array(capacity * dimensions);
  }

  get size(): number {
    return this.ids.length;
  }

  has(id: string): boolean {
    return this.slot.has(id);
  }

  upsert(id: string, vector: Float32Array): void {
    if (vector.length !== this.dimensions) throw new Error(`vector has ${vector.length} dimensions, expected ${this.dimensions}`);
    let i = this.slot.get(id);
    if (i === undefined) {
      i = this.ids.length;
      if ((i + 1) * this.dimensions > this.data.length) {
        const grown = new Float32Array(this.data.length * 2);
        grown.set(this.data);
        this.data = grown;
      }
      this.ids.push(id);
      this.slot.set(id, i);
    }
    this.data.set(vector, i * this.dimensions);
  }

  remove(id: string): void {
    const i = this.slot.get(id);
    if (i === undefined) return;
    const last = this.ids.length - 1;
    if (i !== last) {
      const moved = this.ids[last]!;
      this.data.copyWithin(i * this.dimensions, last * this.dimensions, (last + 1) * this.dimensions);
      this.ids[i] = moved;
      this.slot.set(moved, i);
    }
    this.ids.pop();
    this.slot.delete(id);
  }

  /** Every vector: ids in slot order and the dense matrix behind them. */
  snapshot(): { ids: readonly string[]; matrix: Float32Array } {
    return { ids: this.ids, matrix: this.data.subarray(0, this.ids.length * this.dimensions) };
  }

  /**
   * The k most similar vectors among those `accept` lets through, best first. `acceptFirst` checks the
   * scope before the dot product: cheaper when the scope rejects most vectors, dearer when it does not.
   */
  search(query: Float32Array, k: number, accept: Accept | null, acceptFirst = false): Ranked[] {
    const d = this.dimensions;
    const top: Ranked[] = []; // kept sorted descending; k is small
    const data = this.data;
    for (let i = 0; i < this.ids.length; i++) {
      const id = this.ids[i]!;
      if (acceptFirst && accept && !accept(id)) continue;
      // Four accumulators: fewer dependent additions per step, measurably faster in V8.
      let a = 0,
        b = 0,
        c = 0,
        e = 0;
      const base = i * d;
      let j = 0;
      for (; j + 3 < d; j += 4) {
        a += data[base + j]! * query[j]!;
        b += data[base + j + 1]! * query[j + 1]!;
        c += data[base + j + 2]! * query[j + 2]!;
        e += data[base + j + 3]! * query[j + 3]!;
      }
      for (; j < d; j++) a += data[base + j]! * query[j]!;
      const dot = a + b + c + e;
      if (top.length === k && dot <= top[k - 1]!.score) continue;
      if (!acceptFirst && accept && !accept(id)) continue;
      insertTopK(top, k, { id, score: dot });
    }
    return top;
  }
}

/**
 * Approximate kNN (usearch HNSW, int8-quantised cosine; its native binary ships in the npm package).
 * Measured on 100k clustered 384-d vectors: recall@100 0.95 against exact, 0.6 ms a query.
 */
export class AnnIndex {
  private readonly index: UsearchIndex;
  private readonly keyOf = new Map<string, bigint>();
  private readonly idOf = new Map<bigint, string>();
  private nextKey = 1n;

  constructor(dimensions: number) {
    this.index = new usearch.Index({
      dimensions,
      metric: usearch.MetricKind.Cos,
      quantization: usearch.ScalarKind.I8,
      connectivity: 16,
      expansion_add: 64,
      expansion_search: 128,
      multi: false,
    });
  }

  addMany(ids: readonly string[], matrix: Float32Array): void {
    const keys = new BigUint64Array(ids.length);
    ids.forEach((id, i) => {
      keys[i] = this.nextKey;
      this.keyOf.set(id, this.nextKey);
      this.idOf.set(this.nextKey++, id);
    });
    if (ids.length > 0) this.index.add(keys, matrix, 2);
  }

  upsert(id: string, vector: Float32Array): void {
    this.remove(id);
    this.addMany([id], vector);
  }

  remove(id: string): void {
    const key = this.keyOf.get(id);
    if (key === undefined) return;
    this.index.remove(key);
    this.keyOf.delete(id);
    this.idOf.delete(key);
  }

  get size(): number {
    return this.keyOf.size;
  }

  search(query: Float32Array, k: number): Ranked[] {
    const { keys, distances } = this.index.search(query, k, 1);
    const out: Ranked[] = [];
    for (let i = 0; i < keys.length; i++) {
      const id = this.idOf.get(keys[i]!);
      if (id !== undefined) out.push({ id, score: 1 - distances[i]! });
    }
    return out;
  }
}

/**
 * Exact kNN while the index is small; from `annThreshold` vectors on, an HNSW index answers first and
 * the exact scan remains for scopes too narrow for the approximate neighbours to fill the top k.
 */
export class VectorIndex {
  private readonly exact: ExactVectorIndex;
  private ann: AnnIndex | null = null;
  private bulk = false;

  constructor(
    readonly dimensions: number,
    private readonly annThreshold = 5000,
  ) {
    this.exact = new ExactVectorIndex(dimensions);
  }

  get size(): number {
    return this.exact.size;
  }

  get approximate(): boolean {
    return this.ann !== null;
  }

  has(id: string): boolean {
    return this.exact.has(id);
  }

  /** A bulk load (a rebuild at start) defers the HNSW build to its end: one multi-threaded build. */
  beginBulk(): void {
    this.bulk = true;
  }

  endBulk(): void {
    this.bulk = false;
    this.buildAnnIfDue();
  }

  upsert(id: string, vector: Float32Array): void {
    this.exact.upsert(id, vector);
    if (this.ann) this.ann.upsert(id, vector);
    else this.buildAnnIfDue();
  }

  private buildAnnIfDue(): void {
    if (this.bulk || this.ann || this.exact.size < this.annThreshold) return;
    this.ann = new AnnIndex(this.dimensions);
    const { ids, matrix } = this.exact.snapshot();
    this.ann.addMany(ids, matrix);
  }

  remove(id: string): void {
    this.exact.remove(id);
    this.ann?.remove(id);
  }

  /** Every vector: ids in slot order and the dense matrix behind them. */
  snapshot(): { ids: readonly string[]; matrix: Float32Array } {
    return this.exact.snapshot();
  }

  /** The exact answer, whatever the index size: the yardstick for the approximate one's recall. */
  exactSearch(query: Float32Array, k: number): Ranked[] {
    return this.exact.search(query, k, null);
  }

  /** `accept`: null when every vector here may be found. */
  search(query: Float32Array, k: number, accept: Accept | null): Ranked[] {
    if (!this.ann) return this.exact.search(query, k, accept);
    const fetch = Math.min(this.exact.size, annFetch(k));
    const found = this.ann.search(query, fetch);
    const hits = (accept ? found.filter((h) => accept(h.id)) : found).slice(0, k);
    // Too few approximate neighbours in scope: the scope is narrow, so scan it exactly, scope first.
    if (hits.length < k && fetch < this.exact.size) return this.exact.search(query, k, accept, true);
    return hits;
  }
}
