import { fuseRetrievers, type ApertureOptions, type Fused, type Ranked } from './rrf-fusion.js';

/** A fused hit; a semantic rank that stands in for a missing vector is marked `imputed`. */
export type FusedHit = Omit<Fused, 'retrievers'> & { retrievers: Record<string, { rank: number; score: number; imputed?: true }> };

/**
 * The semantic ranking with the lexical candidates that have no vector yet put in at their lexical
 * rank, the vectored documents from there on moving down one place; a stand-in's score is its
 * neighbour's above (below, at the top). fuseWithMissingVectors no longer fuses this list: it is what a
 * hit without its vector reports as its semantic entry (`imputed`), where the semantic side would put it.
 */
export function withMissingVectors(lexical: Ranked[], semantic: Ranked[], hasVector: (id: string) => boolean): Ranked[] {
  const missing = lexical.map((hit, rank) => ({ hit, rank })).filter(({ hit }) => !hasVector(hit.id));
  if (missing.length === 0) return semantic;
  const out: Ranked[] = [];
  let s = 0;
  let m = 0;
  while (s < semantic.length || m < missing.length) {
    const next = missing[m];
    if (next && (next.rank <= out.length || s >= semantic.length)) {
      const score = out.at(-1)?.score ?? semantic[0]?.score ?? 1;
      out.push({ id: next.hit.id, score });
      m++;
    } else out.push(semantic[s++]!);
  }
  return out;
}

/**
 * Hybrid fusion while some lexical candidates have no vector yet (issues #23 and #33). Two rules,
 * measured on random draws of 0–100 % coverage (bench/indexing-lag.ts, docs/decisions.md):
 *
 * 1. A lexical candidate without a vector keeps exactly the place lexical-only search gives it. The
 *    result is the lexical list with the places of its vectored candidates filled, in fused order, by
 *    the vectored documents (those candidates and the semantic retriever's own finds). Imputing the
 *    missing document into the semantic list at its lexical rank instead credited it with perfect
 *    semantic agreement, so it jumped over vectored documents lexical-only search ranks above it.
 * 2. The semantic list's weight is scaled by the share of lexical candidates that have their vector:
 *    a semantic list over part of the collection is weaker evidence than one over all of it.
 *
 * With no vector among the candidates this is exactly the lexical order; with every vector it is
 * plain fusion, unchanged. Scores are made non-increasing down the list (a kept place takes the score
 * of the hit below it when that is higher).
 */
export function fuseWithMissingVectors(
  lexical: Ranked[],
  semantic: Ranked[] | null,
  hasVector: (id: string) => boolean,
  limit: number,
  aperture: ApertureOptions | null,
  semanticWeight: number,
): { fused: FusedHit[]; counts: { lexical: number; semantic: number; semanticKept: number } } {
  const missing = new Set(lexical.filter((h) => !hasVector(h.id)).map((h) => h.id));
  if (!semantic || missing.size === 0) {
    const { fused, counts } = fuseRetrievers(lexical, semantic ?? [], limit, aperture, semanticWeight);
    return { fused, counts: { ...counts, semantic: semantic?.length ?? 0 } };
  }
  const coverage = 1 - missing.size / lexical.length;
  const weighted = coverage > 0 ? semantic : []; // weight 0: the semantic side says nothing
  const { fused, counts } = fuseRetrievers(lexical, weighted, lexical.length + weighted.length, aperture, semanticWeight * coverage);
  const byId = new Map(fused.map((f) => [f.id, f]));
  const stand = new Map(withMissingVectors(lexical, semantic, hasVector).map((h, i) => [h.id, { rank: i + 1, score: h.score }]));
  const fill = fused.filter((f) => !missing.has(f.id));
  const out: FusedHit[] = [];
  let next = 0;
  for (let place = 0; out.length < limit && (place < lexical.length || next < fill.length); place++) {
    const kept = lexical[place];
    if (kept && missing.has(kept.id)) {
      const f = byId.get(kept.id)!;
      out.push({ ...f, retrievers: { ...f.retrievers, semantic: { ...stand.get(kept.id)!, imputed: true as const } } });
    } else if (next < fill.length) out.push(fill[next++]!);
  }
  for (let i = out.length - 2; i >= 0; i--) if (out[i]!.score < out[i + 1]!.score) out[i] = { ...out[i]!, score: out[i + 1]!.score };
  return { fused: out, counts: { ...counts, semantic: semantic.length } };
}
