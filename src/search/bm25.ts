import { terms } from './analyzer.js';
import { insertTopK, type Ranked } from './rrf-fusion.js';

export const bm25Fields = ['title', 'description', 'content'] as const;
export type Bm25Field = (typeof bm25Fields)[number];
export type FieldWeights = Record<Bm25Field, number>;

const k1 = 1.2;
const b = 0.75;

/** Growable typed-array postings of one term: document slot and term frequency per field. */
class Postings {
  slots = new Uint32Array(4);
  tf = new Uint16Array(4 * 3);
  length = 0;

  push(slot: number, tfs: [number, number, number]): void {
    if (this.length === this.slots.length) {
      const slots = new Uint32Array(this.slots.length * 2);
      slots.set(this.slots);
      this.slots = slots;
      const tf = new Uint16Array(this.tf.length * 2);
      tf.set(this.tf);
      this.tf = tf;
    }
    this.slots[this.length] = slot;
    this.tf.set(
      tfs.map((t) => Math.min(t, 65535)),
      this.length * 3,
    );
    this.length++;
  }
}

/**
 * BM25F over title, description and content, in typed arrays: field weights apply at query time (so
 * presets need no re-index), and a query touches only its terms' postings and keeps a top-k, instead
 * of building a result object for every matching document. Updates write a new slot and tombstone the
 * old one; tombstones are compacted away once they are a third of the slots.
 */
export class Bm25Index {
  private readonly termIds = new Map<string, number>();
  private postings: Postings[] = [];
  private df: number[] = [];
  private slotIds: (string | null)[] = [];
  private slotTerms: Uint32Array[] = [];
  private lengths = new Float32Array(0);
  private readonly slotOf = new Map<string, number>();
  private readonly totalLength = [0, 0, 0];
  private dead = 0;
  // Reused across queries: one score and one touched-slot entry per slot, no per-query allocation.
  private scores = new Float32Array(0);
  private touched = new Int32Array(0);

  get size(): number {
    return this.slotOf.size;
  }

  has(id: string): boolean {
    return this.slotOf.has(id);
  }

  upsert(id: string, fields: Record<Bm25Field, string>): void {
    this.remove(id);
    const slot = this.slotIds.length;
    const perField = bm25Fields.map((f) => terms(fields[f]));
    const tfs = new Map<number, [number, number, number]>();
    perField.forEach((list, f) => {
      for (const term of list) {
        let tid = this.termIds.get(term);
        if (tid === undefined) {
          tid = this.postings.length;
          this.termIds.set(term, tid);
          this.postings.push(new Postings());
          this.df.push(0);
        }
        const entry = tfs.get(tid) ?? [0, 0, 0];
        entry[f]!++;
        tfs.set(tid, entry);
      }
    });
    for (const [tid, entry] of tfs) {
      this.postings[tid]!.push(slot, entry);
      this.df[tid]!++;
    }
    this.slotIds.push(id);
    this.slotTerms.push(Uint32Array.from(tfs.keys()));
    if (this.lengths.length < (slot + 1) * 3) {
      const grown = new Float32Array(Math.max(48, this.lengths.length * 2));
      grown.set(this.lengths);
      this.lengths = grown;
    }
    perField.forEach((list, f) => {
      this.lengths[slot * 3 + f] = list.length;
      this.totalLength[f]! += list.length;
    });
    this.slotOf.set(id, slot);
  }

  remove(id: string): void {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return;
    for (const tid of this.slotTerms[slot]!) this.df[tid]!--;
    for (let f = 0; f < 3; f++) this.totalLength[f]! -= this.lengths[slot * 3 + f]!;
    this.slotIds[slot] = null;
    this.slotTerms[slot] = new Uint32Array(0);
    this.slotOf.delete(id);
    if (++this.dead > 1000 && this.dead * 3 > this.slotIds.length) this.compact();
  }

  /** The top `k` documents `accept` lets through, by BM25F with these field weights. */
  search(query: string, weights: FieldWeights, k: number, accept: (id: string) => boolean): Ranked[] {
    const n = this.slotOf.size;
    if (n === 0) return [];
    const qterms = [...new Set(terms(query))].map((t) => this.termIds.get(t)).filter((t): t is number => t !== undefined);
    if (this.scores.length < this.slotIds.length) {
      this.scores = new Float32Array(this.slotIds.length * 2);
      this.touched = new Int32Array(this.slotIds.length * 2);
    }
    const { scores, touched } = this;
    let touchedCount = 0;
    const w = bm25Fields.map((f) => weights[f]);
    const avg = this.totalLength.map((total) => Math.max(1, total / n));
    for (const tid of qterms) {
      const df = this.df[tid]!;
      if (df === 0) continue;
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      const p = this.postings[tid]!;
      for (let i = 0; i < p.length; i++) {
        const slot = p.slots[i]!;
        if (this.slotIds[slot] === null) continue;
        let tf = 0;
        for (let f = 0; f < 3; f++) {
          const t = p.tf[i * 3 + f]!;
          if (t > 0) tf += (w[f]! * t) / (1 - b + (b * this.lengths[slot * 3 + f]!) / avg[f]!);
        }
        if (tf === 0) continue;
        if (scores[slot] === 0) touched[touchedCount++] = slot;
        scores[slot]! += (idf * tf * (k1 + 1)) / (tf + k1);
      }
    }
    const top: Ranked[] = [];
    for (let i = 0; i < touchedCount; i++) {
      const slot = touched[i]!;
      const score = scores[slot]!;
      scores[slot] = 0;
      if (top.length === k && score <= top[k - 1]!.score) continue;
      const id = this.slotIds[slot]!;
      if (!accept(id)) continue;
      insertTopK(top, k, { id, score });
    }
    return top;
  }

  /** Rebuilds the postings without tombstoned slots. */
  private compact(): void {
    const live = this.slotIds.map((id, slot) => ({ id, slot })).filter((x) => x.id !== null);
    const remap = new Int32Array(this.slotIds.length).fill(-1);
    live.forEach((x, i) => (remap[x.slot] = i));
    for (const p of this.postings) {
      let j = 0;
      for (let i = 0; i < p.length; i++) {
        const to = remap[p.slots[i]!]!;
        if (to < 0) continue;
        p.slots[j] = to;
        p.tf.copyWithin(j * 3, i * 3, i * 3 + 3);
        j++;
      }
      p.length = j;
    }
    const lengths = new Float32Array(Math.max(48, live.length * 3 * 2));
    live.forEach((x, i) => lengths.set(this.lengths.subarray(x.slot * 3, x.slot * 3 + 3), i * 3));
    this.lengths = lengths;
    this.slotTerms = live.map((x) => this.slotTerms[x.slot]!);
    this.slotIds = live.map((x) => x.id);
    this.slotOf.clear();
    this.slotIds.forEach((id, i) => this.slotOf.set(id!, i));
    this.dead = 0;
  }
}
