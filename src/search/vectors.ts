import type { Ranked } from './fusion.js';

/**
 * Exact k-nearest-neighbour search over unit vectors (cosine = dot product), in one contiguous
 * Float32Array. Removal swaps the last vector into the hole, so the matrix stays dense.
 */
export class ExactVectorIndex {
  private data: Float32Array;
  private ids: string[] = [];
  private readonly slot = new Map<string, number>();

  constructor(readonly dimensions: number, capacity = 1024) {
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

  /** The k most similar vectors among those `accept` lets through, best first. */
  search(query: Float32Array, k: number, accept: (id: string) => boolean): Ranked[] {
    const d = this.dimensions;
    const top: Ranked[] = []; // kept sorted descending; k is small
    const data = this.data;
    for (let i = 0; i < this.ids.length; i++) {
      // Four accumulators: fewer dependent additions per step, measurably faster in V8.
      let a = 0, b = 0, c = 0, e = 0;
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
      const id = this.ids[i]!;
      if (!accept(id)) continue;
      let at = top.length;
      while (at > 0 && top[at - 1]!.score < dot) at--;
      top.splice(at, 0, { id, score: dot });
      if (top.length > k) top.pop();
    }
    return top;
  }
}
