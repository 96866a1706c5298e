// Cross-validation of every search parameter (issue #33, item 4): each one is tuned on one collection
// and reported on the other (tune on Cranfield, report CACM; tune on CACM, report Cranfield), next to
// the default. A parameter keeps its default only where the default holds on both held-out collections.
//
// The rankings are precomputed once per collection: our BM25F top list per field-boost pair (the index
// takes the boosts at query time) and the exact cosine ranking of the documents; each setting is then
// fusion alone (fuseRetrievers, what MemorySearchIndex.search runs with every vector present), so the
// grids cost seconds. BM25's k1 and b are constants of src/search/bm25.ts, not parameters: not tuned here.
import { Bm25Index } from '../src/search/bm25.js';
import { defaultAperture, fuseRetrievers, type ApertureOptions, type Ranked } from '../src/search/rrf-fusion.js';
import { boostPresets } from '../src/search/presets.js';
import { ndcgAt10, type Cranfield } from './collections.js';

/** The search parameters the bench tunes; the description boost cannot be (neither collection has descriptions). */
export interface Params {
  title: number;
  content: number;
  candidates: number;
  weight: number;
  /** The aperture's similarity floor; null: no floor. */
  minScore: number | null;
  /** Whether the aperture cuts the semantic list at its elbow. */
  elbow: boolean;
}

export const grids: { [K in keyof Params]: Params[K][] } = {
  title: [1, 1.5, 2, 3, 4],
  content: [0.5, 1, 1.5, 2],
  candidates: [25, 50, 100, 200],
  weight: [0.25, 0.35, 0.5, 0.7, 1, 1.4],
  minScore: [null, 0.1, 0.15, 0.2, 0.25, 0.3],
  elbow: [false, true],
};

/** What `npm run bench:search` ships: the balanced preset, the API's 100 candidates, the embedder's weight and floor, the elbow on. */
export function defaults(weight: number, minScore: number): Params {
  const { title, content } = boostPresets.balanced;
  return { title, content, candidates: 100, weight, minScore, elbow: true };
}

/** One collection's precomputed rankings: per query, the lexical list per boost pair and the semantic list. */
export interface Prepared {
  col: Cranfield;
  lexical: Map<string, Ranked[][]>;
  semantic: Ranked[][];
}

const maxCandidates = Math.max(...grids.candidates);
const boostKey = (title: number, content: number) => `${title}/${content}`;

export function prepare(col: Cranfield, docVectors: Float32Array[], queryVectors: Float32Array[]): Prepared {
  const index = new Bm25Index();
  for (const d of col.docs) index.upsert(d.id, { title: d.title, description: '', content: d.content }, 'bench');
  const lexical = new Map<string, Ranked[][]>();
  for (const title of grids.title)
    for (const content of [...new Set([...grids.content, boostPresets.balanced.content])])
      lexical.set(
        boostKey(title, content),
        col.queries.map((q) => index.search(q.text, { title, description: 0, content }, maxCandidates, () => true)),
      );
  const semantic = queryVectors.map((qv) =>
    docVectors
      .map((v, i) => {
        let dot = 0;
        for (let j = 0; j < v.length; j++) dot += v[j]! * qv[j]!;
        return { id: col.docs[i]!.id, score: dot };
      })
      .sort((a, b) => b.score - a.score)
      .slice(0, maxCandidates),
  );
  return { col, lexical, semantic };
}

function aperture(p: Params): ApertureOptions | null {
  if (p.minScore === null && !p.elbow) return null;
  // Without the elbow: a list never counts as long enough to have one.
  return { ...defaultAperture, minScore: p.minScore ?? -Infinity, ...(p.elbow ? {} : { minCandidates: Infinity }) };
}

/** Per-query nDCG@10 of hybrid search with these parameters. */
export function perQuery(prep: Prepared, p: Params): number[] {
  const lists = prep.lexical.get(boostKey(p.title, p.content))!;
  const ap = aperture(p);
  return prep.col.queries.map((q, qi) => {
    const lexical = lists[qi]!.slice(0, p.candidates);
    const semantic = prep.semantic[qi]!.slice(0, p.candidates);
    const { fused } = fuseRetrievers(lexical, semantic, 100, ap, p.weight);
    return ndcgAt10(
      fused.map((f) => f.id),
      prep.col.judgements.get(q.id) ?? new Map(),
    );
  });
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
export const score = (prep: Prepared, p: Params) => mean(perQuery(prep, p));

/** The value of one parameter best on this collection, the others at their defaults (ties: the default, then the first). */
function bestValue<K extends keyof Params>(prep: Prepared, base: Params, key: K): Params[K] {
  let best = base[key];
  let bestScore = score(prep, base);
  for (const v of grids[key]) {
    const s = score(prep, { ...base, [key]: v });
    if (s > bestScore + 1e-9) [best, bestScore] = [v, s];
  }
  return best;
}

/** Held-out gains smaller than this (absolute nDCG@10) are too small to act on, whatever their p. */
export const margin = 0.005;

/**
 * One-sided paired sign-flip permutation test (seeded, 4,000 flips): how often a random sign per
 * query gives a mean difference at least the observed one. Small p: the chosen value is better held out.
 */
export function pairedP(chosen: number[], base: number[]): number {
  const diffs = chosen.map((c, i) => c - base[i]!);
  const observed = diffs.reduce((a, b) => a + b, 0);
  let state = 33;
  const random = () => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 4294967296;
  let atLeast = 0;
  const flips = 4000;
  for (let f = 0; f < flips; f++) if (diffs.reduce((a, d) => a + (random() < 0.5 ? -d : d), 0) >= observed - 1e-12) atLeast++;
  return (atLeast + 1) / (flips + 1);
}

/** A held-out comparison: nDCG@10 of the default and of the other collection's choice, and the test's p. */
export interface HeldOut {
  base: number;
  chosen: number;
  p: number;
}

function heldOut(prep: Prepared, base: Params, chosen: Params): HeldOut {
  const b = perQuery(prep, base);
  const c = perQuery(prep, chosen);
  return { base: mean(b), chosen: mean(c), p: pairedP(c, b) };
}

/** Whether the other collection's choice beats the default held out: by more than `margin`, at p < 0.05. */
const beats = (h: HeldOut) => h.chosen - h.base > margin && h.p < 0.05;

export interface ParamRow {
  key: keyof Params;
  default: string;
  best: [string, string];
  /** [B with A's choice, A with B's choice]. */
  heldOut: [HeldOut, HeldOut];
  verdict: string;
}

const show = (v: Params[keyof Params]) => (v === null ? 'off' : typeof v === 'boolean' ? (v ? 'on' : 'off') : String(v));

/**
 * Tunes each parameter on A and reports on B, then the other way round; then all of one collection's
 * choices together, reported on the other. The default holds where neither held-out collection shows
 * the other's choice better (`beats`).
 */
export function crossValidate(
  a: Prepared,
  b: Prepared,
  base: Params,
): { rows: ParamRow[]; joint: { chosen: [Params, Params]; heldOut: [HeldOut, HeldOut] } } {
  const rows: ParamRow[] = [];
  const chosen: [Params, Params] = [{ ...base }, { ...base }];
  const [an, bn] = [a.col.name.split(' ')[0]!, b.col.name.split(' ')[0]!];
  for (const key of Object.keys(grids) as (keyof Params)[]) {
    const onA = bestValue(a, base, key);
    const onB = bestValue(b, base, key);
    (chosen[0] as unknown as Record<string, unknown>)[key] = onA;
    (chosen[1] as unknown as Record<string, unknown>)[key] = onB;
    const held: [HeldOut, HeldOut] = [heldOut(b, base, { ...base, [key]: onA }), heldOut(a, base, { ...base, [key]: onB })];
    const fails = [held[0], held[1]].map((h, i) => (beats(h) ? (i === 0 ? bn : an) : null)).filter(Boolean);
    const verdict =
      fails.length === 0
        ? onA === base[key] && onB === base[key]
          ? 'holds on both (best on both)'
          : 'holds on both'
        : `does not hold on ${fails.join(' and ')}`;
    rows.push({ key, default: show(base[key]), best: [show(onA), show(onB)], heldOut: held, verdict });
  }
  return { rows, joint: { chosen, heldOut: [heldOut(b, base, chosen[0]), heldOut(a, base, chosen[1])] } };
}

/** Prints the cross-validation table: per parameter, and all choices together. */
export function printCrossValidation(a: Prepared, b: Prepared, cv: ReturnType<typeof crossValidate>): void {
  const [an, bn] = [a.col.name.split(' ')[0]!, b.col.name.split(' ')[0]!];
  console.log(
    `\nCross-validation (MiniLM hybrid, all vectors): each parameter tuned alone (the others at default) on one collection, reported on the other.`,
  );
  console.log(
    `"holds": on neither collection does the other's choice beat the default held out by more than ${margin} nDCG@10 at p < 0.05 (paired sign-flip test, one-sided).`,
  );
  const head = [
    'parameter',
    'default',
    `best on ${an}`,
    `best on ${bn}`,
    `${bn} held out: default → ${an}'s`,
    `${an} held out: default → ${bn}'s`,
    'verdict',
  ];
  const cell = (h: HeldOut) => `${h.base.toFixed(4)} → ${h.chosen.toFixed(4)} (p ${h.p.toFixed(3)})`;
  const cells = cv.rows.map((r) => [r.key, r.default, r.best[0], r.best[1], cell(r.heldOut[0]), cell(r.heldOut[1]), r.verdict]);
  const j = cv.joint;
  const all = (p: Params) => (Object.keys(grids) as (keyof Params)[]).map((k) => `${k} ${show(p[k])}`).join(', ');
  cells.push(['all together', '', 'below', 'below', cell(j.heldOut[0]), cell(j.heldOut[1]), '']);
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) => c.map((v, i) => v.padEnd(widths[i]!)).join(' | ');
  console.log(line(head));
  console.log(widths.map((w) => '-'.repeat(w)).join('-|-'));
  for (const c of cells) console.log(line(c));
  console.log(`all chosen on ${an}: ${all(j.chosen[0])}`);
  console.log(`all chosen on ${bn}: ${all(j.chosen[1])}`);
}
