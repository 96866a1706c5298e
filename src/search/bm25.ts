import { terms } from './analyzer.js';
import { insertTopK, type Ranked } from './rrf-fusion.js';

export const bm25Fields = ['title', 'description', 'content'] as const;
export type Bm25Field = (typeof bm25Fields)[number];
export type FieldWeights = Record<Bm25Field, number>;

/**
 * A search's scope: the containers whose documents it may match, those documents and how many they
 * are, and which of them it may find (null: all).
 */
export interface Within {
  containers: ReadonlySet<string>;
  ids: Iterable<string>;
  size: number;
  accept: ((id: string) => boolean) | null;
}

interface Scoring {
  /** Field weights, average field lengths, and each query term's idf. */
  w: number[];
  avg: number[];
  idf: number[];
}

/**
 * Scoring one document's query term from the forward index (a binary search, the scope's id sets)
 * against reading one posting, which the scope check skips at an array lookup: measured 10–20×.
 */
const forwardCost = 16;

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
  /** Per slot, its term ids in ascending order and their frequencies per field (three per term): the forward index. */
  private slotTerms: Uint32Array[] = [];
  private slotTf: Uint16Array[] = [];
  /** Per slot, the number of its container (`containerNo`): the postings walk skips other containers' documents at once. */
  private slotContainer: number[] = [];
  private readonly containerNo = new Map<string, number>();
  private lengths = new Float32Array(0);
  private readonly slotOf = new Map<string, number>();
  private readonly totalLength = [0, 0, 0];
  private dead = 0;
  // Reused across queries: one score and one touched-slot entry per slot, no per-query allocation.
  private scores = new Float32Array(0);
  /** What the last search read: postings walked, or documents scored from the forward index. */
  lastSearchCost = 0;
  private touched = new Int32Array(0);

  get size(): number {
    return this.slotOf.size;
  }

  has(id: string): boolean {
    return this.slotOf.has(id);
  }

  /** `container`: what a scoped search (`Within`) tells documents apart by. */
  upsert(id: string, fields: Record<Bm25Field, string>, container = ''): void {
    this.remove(id);
    const slot = this.slotIds.length;
    let no = this.containerNo.get(container);
    if (no === undefined) this.containerNo.set(container, (no = this.containerNo.size));
    this.slotContainer.push(no);
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
    const termIds = Uint32Array.from(tfs.keys()).sort();
    const forward = new Uint16Array(termIds.length * 3);
    termIds.forEach((tid, i) => {
      const entry = tfs.get(tid)!;
      this.postings[tid]!.push(slot, entry);
      this.df[tid]!++;
      forward.set(
        entry.map((t) => Math.min(t, 65535)),
        i * 3,
      );
    });
    this.slotIds.push(id);
    this.slotTerms.push(termIds);
    this.slotTf.push(forward);
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
    this.slotTf[slot] = new Uint16Array(0);
    this.slotOf.delete(id);
    if (++this.dead > 1000 && this.dead * 3 > this.slotIds.length) this.compact();
  }

  /**
   * The top `k` documents `accept` lets through, by BM25F with these field weights (statistics over
   * the whole index). `within`: the only documents that may match; when reading each of them costs
   * less than walking the query terms' postings (a small scope in a large index), they are scored one
   * by one from the forward index instead, so the cost follows the scope, not the index.
   */
  search(query: string, weights: FieldWeights, k: number, accept: (id: string) => boolean, within?: Within): Ranked[] {
    const n = this.slotOf.size;
    this.lastSearchCost = 0;
    if (n === 0) return [];
    const qterms = [...new Set(terms(query))]
      .map((t) => this.termIds.get(t))
      .filter((t): t is number => t !== undefined && this.df[t]! > 0)
      .sort((x, y) => x - y);
    if (qterms.length === 0) return [];
    const scoring: Scoring = {
      w: bm25Fields.map((f) => weights[f]),
      avg: this.totalLength.map((total) => Math.max(1, total / n)),
      idf: qterms.map((tid) => {
        const df = this.df[tid]!;
        return Math.log(1 + (n - df + 0.5) / (df + 0.5));
      }),
    };
    const walk = qterms.reduce((sum, tid) => sum + this.postings[tid]!.length, 0);
    if (within && within.size * qterms.length * forwardCost < walk) {
      this.lastSearchCost = within.size;
      return this.searchForward(qterms, scoring, k, within);
    }
    this.lastSearchCost = walk;
    if (!within) return this.searchPostings(qterms, scoring, k, accept, null);
    const allowed = new Uint8Array(this.containerNo.size);
    for (const c of within.containers) {
      const no = this.containerNo.get(c);
      if (no !== undefined) allowed[no] = 1;
    }
    return this.searchPostings(qterms, scoring, k, within.accept, allowed);
  }

  /** Term at a time over the query terms' postings; `allowed`: by container number, the ones in scope (null: all). */
  private searchPostings(
    qterms: number[],
    { w, avg, idf }: Scoring,
    k: number,
    accept: ((id: string) => boolean) | null,
    allowed: Uint8Array | null,
  ): Ranked[] {
    if (this.scores.length < this.slotIds.length) {
      this.scores = new Float32Array(this.slotIds.length * 2);
      this.touched = new Int32Array(this.slotIds.length * 2);
    }
    const { scores, touched } = this;
    let touchedCount = 0;
    qterms.forEach((tid, q) => {
      const p = this.postings[tid]!;
      for (let i = 0; i < p.length; i++) {
        const slot = p.slots[i]!;
        if (this.slotIds[slot] === null || (allowed && allowed[this.slotContainer[slot]!] === 0)) continue;
        let tf = 0;
        for (let f = 0; f < 3; f++) {
          const t = p.tf[i * 3 + f]!;
          if (t > 0) tf += (w[f]! * t) / (1 - b + (b * this.lengths[slot * 3 + f]!) / avg[f]!);
        }
        if (tf === 0) continue;
        if (scores[slot] === 0) touched[touchedCount++] = slot;
        scores[slot]! += (idf[q]! * tf * (k1 + 1)) / (tf + k1);
      }
    });
    const top: Ranked[] = [];
    for (let i = 0; i < touchedCount; i++) {
      const slot = touched[i]!;
      const score = scores[slot]!;
      scores[slot] = 0;
      if (top.length === k && score <= top[k - 1]!.score) continue;
      const id = this.slotIds[slot]!;
      if (accept && !accept(id)) continue;
      insertTopK(top, k, { id, score });
    }
    return top;
  }

  /** Document at a time over `ids`, each looked up in the forward index; the same scores as the postings walk. */
  private searchForward(qterms: number[], { w, avg, idf }: Scoring, k: number, { ids, accept }: Within): Ranked[] {
    const top: Ranked[] = [];
    for (const id of ids) {
      const slot = this.slotOf.get(id);
      if (slot === undefined) continue;
      const docTerms = this.slotTerms[slot]!;
      const tfs = this.slotTf[slot]!;
      let score = 0;
      let from = 0;
      for (let q = 0; q < qterms.length; q++) {
        const at = lowerBound(docTerms, qterms[q]!, from);
        if (at === docTerms.length) break; // query terms ascend: none further is here
        from = at;
        if (docTerms[at] !== qterms[q]) continue;
        let tf = 0;
        for (let f = 0; f < 3; f++) {
          const t = tfs[at * 3 + f]!;
          if (t > 0) tf += (w[f]! * t) / (1 - b + (b * this.lengths[slot * 3 + f]!) / avg[f]!);
        }
        // Rounded as the postings walk's Float32Array accumulates, so both give the same scores.
        if (tf > 0) score = Math.fround(score + (idf[q]! * tf * (k1 + 1)) / (tf + k1));
      }
      if (score === 0 || (top.length === k && score <= top[k - 1]!.score)) continue;
      if (accept && !accept(id)) continue;
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
    this.slotTf = live.map((x) => this.slotTf[x.slot]!);
    this.slotContainer = live.map((x) => this.slotContainer[x.slot]!);
    this.slotIds = live.map((x) => x.id);
    this.slotOf.clear();
    this.slotIds.forEach((id, i) => this.slotOf.set(id!, i));
    this.dead = 0;
  }
}

/** The first index at or after `from` whose value is not below `value` (`sorted` ascending). */
function lowerBound(sorted: Uint32Array, value: number, from: number): number {
  let lo = from;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
