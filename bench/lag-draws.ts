// Random draws of indexing lag for bench/indexing-lag.ts (issue #33, item 3): a coverage drawn uniformly
// from 0–100 %, which documents have their vector drawn at random, every query of the collection ranked
// by hybrid search as MemorySearchIndex runs it then (fuseWithMissingVectors over our BM25 list and the
// kNN of the documents that have a vector) and by lexical-only search. Rankings are precomputed once per
// collection (the lexical list does not depend on the draw, the semantic one is the full cosine order
// restricted to the draw's vectored documents), so 40 draws cost seconds; `indexCheck` confirms on one
// draw that the index ranks the same.
import { Bm25Index } from '../src/search/bm25.js';
import { fuseWithMissingVectors } from '../src/search/missing-vectors.js';
import { MemorySearchIndex } from '../src/search/memory-index.js';
import { boostPresets } from '../src/search/presets.js';
import type { ApertureOptions, Ranked } from '../src/search/rrf-fusion.js';
import { ndcgAt10, searchableDoc, type Cranfield } from './collections.js';

const depth = 100; // the API's candidates per retriever, and the results ranked

/** A seeded generator (mulberry32): the same draws in every run. */
export function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function sample<T>(items: T[], count: number, random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out.slice(0, count);
}

export interface Lists {
  col: Cranfield;
  /** Per query: our BM25F top list (balanced preset) and every document by cosine, best first. */
  lexical: Ranked[][];
  semantic: Ranked[][];
  docVectors: Float32Array[];
  queryVectors: Float32Array[];
}

export function precompute(col: Cranfield, docVectors: Float32Array[], queryVectors: Float32Array[]): Lists {
  const index = new Bm25Index();
  for (const d of col.docs) index.upsert(d.id, { title: d.title, description: '', content: d.content }, 'bench');
  const lexical = col.queries.map((q) => index.search(q.text, boostPresets.balanced, depth, () => true));
  const semantic = queryVectors.map((qv) =>
    docVectors
      .map((v, i) => {
        let dot = 0;
        for (let j = 0; j < v.length; j++) dot += v[j]! * qv[j]!;
        return { id: col.docs[i]!.id, score: dot };
      })
      .sort((a, b) => b.score - a.score),
  );
  return { col, lexical, semantic, docVectors, queryVectors };
}

export interface Draw {
  coverage: number;
  lexical: number[];
  hybrid: number[];
}

/** Per-query nDCG@10, lexical-only and hybrid, with only `vectored` documents embedded. */
export function rank(lists: Lists, vectored: Set<string>, aperture: ApertureOptions | null, weight: number): Omit<Draw, 'coverage'> {
  const { col } = lists;
  const lexical: number[] = [];
  const hybrid: number[] = [];
  col.queries.forEach((q, qi) => {
    const gains = col.judgements.get(q.id) ?? new Map<string, number>();
    const lex = lists.lexical[qi]!;
    const semantic: Ranked[] = [];
    for (const hit of lists.semantic[qi]!) {
      if (semantic.length === depth) break;
      if (vectored.has(hit.id)) semantic.push(hit);
    }
    lexical.push(
      ndcgAt10(
        lex.map((h) => h.id),
        gains,
      ),
    );
    const { fused } = fuseWithMissingVectors(lex, semantic, (id) => vectored.has(id), depth, aperture, weight);
    hybrid.push(
      ndcgAt10(
        fused.map((f) => f.id),
        gains,
      ),
    );
  });
  return { lexical, hybrid };
}

/** `count` draws (coverage uniform on 0–1, then which documents at random), plus 0 % and 100 % for reference. */
export function draws(lists: Lists, count: number, seed: number, aperture: ApertureOptions | null, weight: number): Draw[] {
  const random = seeded(seed);
  const ids = lists.col.docs.map((d) => d.id);
  const coverages = [0, 1, ...Array.from({ length: count }, () => random())];
  return coverages.map((coverage) => {
    const vectored = new Set(sample(ids, Math.round(coverage * ids.length), random));
    return { coverage, ...rank(lists, vectored, aperture, weight) };
  });
}

/** The same draw through MemorySearchIndex.search: its mean hybrid nDCG@10, to compare with `rank`'s. */
export function indexCheck(lists: Lists, vectored: Set<string>, aperture: ApertureOptions | null, weight: number): number {
  const { col } = lists;
  const index = new MemorySearchIndex(lists.docVectors[0]!.length);
  col.docs.forEach((d, i) => index.upsert(searchableDoc(d, 'bench', vectored.has(d.id) ? lists.docVectors[i]! : undefined)));
  const scope = { containerIds: new Set(['bench']), contentTypes: null, typeLimits: null };
  let sum = 0;
  col.queries.forEach((q, qi) => {
    const hits = index.search({
      text: q.text,
      vector: lists.queryVectors[qi]!,
      limit: depth,
      preset: 'balanced',
      candidates: depth,
      aperture,
      semanticWeight: weight,
      scope,
    }).hits;
    sum += ndcgAt10(
      hits.map((h) => h.id),
      col.judgements.get(q.id) ?? new Map(),
    );
  });
  index.close();
  return sum / col.queries.length;
}

export const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
