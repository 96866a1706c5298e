import { fuseRetrievers, type ApertureOptions, type Fused, type Ranked } from './rrf-fusion.js';

/** A fused hit; a semantic rank that stands in for a missing vector is marked `imputed`. */
export type FusedHit = Omit<Fused, 'retrievers'> & { retrievers: Record<string, { rank: number; score: number; imputed?: true }> };

/**
 * The semantic ranking with the lexical candidates that have no vector yet put in (issue #23: a
 * document whose embedding lags must not fall below documents that have one).
 *
 * The rule: a document the semantic retriever cannot see is ranked by it where the lexical retriever
 * ranked it: at its lexical rank, the vectored documents from there on moving down one place. Its
 * score is its neighbour's above (below, at the top), so the aperture's similarity floor and elbow
 * treat it like the vectored documents around it. With no vector at all this is the lexical list
 * itself, and fusion gives exactly the lexical order; with every vector it changes nothing; in
 * between, a document's fused score no longer depends on whether its embedding has been stored yet,
 * only on what the lexical side said about it.
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
 * fuseRetrievers over the lexical list and the semantic one completed by withMissingVectors. A hit
 * ranked semantically for want of its vector says so (`imputed`); the semantic count is of real
 * neighbours.
 */
export function fuseWithMissingVectors(
  lexical: Ranked[],
  semantic: Ranked[] | null,
  hasVector: (id: string) => boolean,
  limit: number,
  aperture: ApertureOptions | null,
  semanticWeight: number,
) {
  const completed = semantic ? withMissingVectors(lexical, semantic, hasVector) : [];
  const { fused, counts } = fuseRetrievers(lexical, completed, limit, aperture, semanticWeight);
  const hits = fused.map((f): FusedHit => {
    const s = f.retrievers.semantic;
    return s && !hasVector(f.id) ? { ...f, retrievers: { ...f.retrievers, semantic: { ...s, imputed: true as const } } } : f;
  });
  return { fused: hits, counts: { ...counts, semantic: semantic?.length ?? 0 } };
}
