/** The Reciprocal Rank Fusion constant of SPEC §1 and §8. */
export const rrfK = 60;

export interface Ranked {
  id: string;
  score: number;
}

/** Inserts a hit into a descending top-k list, dropping what falls off the end. */
export function insertTopK(top: Ranked[], k: number, hit: Ranked): void {
  let at = top.length;
  while (at > 0 && top[at - 1]!.score < hit.score) at--;
  top.splice(at, 0, hit);
  if (top.length > k) top.pop();
}

export interface Fused {
  id: string;
  score: number;
  /** Per retriever: 1-based rank and the retriever's own score. */
  retrievers: Record<string, { rank: number; score: number }>;
}

/**
 * Weighted RRF: score(d) = Σ over retrievers of w / (k + rank(d)), rank from 1, w the retriever's
 * weight (1 unless given). Ties keep the first list's order.
 */
export function reciprocalRankFusion(rankings: Record<string, Ranked[]>, k = rrfK, weights: Record<string, number> = {}): Fused[] {
  const fused = new Map<string, Fused>();
  for (const [name, list] of Object.entries(rankings)) {
    list.forEach((hit, index) => {
      const entry = fused.get(hit.id) ?? { id: hit.id, score: 0, retrievers: {} };
      entry.score += (weights[name] ?? 1) / (k + index + 1);
      entry.retrievers[name] = { rank: index + 1, score: hit.score };
      fused.set(hit.id, entry);
    });
  }
  return [...fused.values()].sort((a, b) => b.score - a.score);
}

export interface ApertureOptions {
  /** Neighbours less similar than this are dropped first: below it an embedder's scores say "unrelated". */
  minScore: number;
  /** Never cut below this many neighbours. */
  minKeep: number;
  /** Below this many candidates there is no curve to speak of: keep them all. */
  minCandidates: number;
  /** Scores spread less than this (max − min) are flat: no elbow, keep them all. */
  flatSpread: number;
}

/** How far below the chord (in normalised units) a point must sit to count as an elbow. */
const minElbowDepth = 0.1;

export const defaultAperture: ApertureOptions = { minScore: 0.2, minKeep: 5, minCandidates: 8, flatSpread: 0.02 };

/**
 * How many of the descending `scores` to keep: up to the elbow of the curve, found as the point
 * farthest below the chord from the first to the last score in normalised coordinates (the Kneedle
 * difference curve for a decreasing convex curve, Satopää et al. 2011). Guards: too few candidates or
 * flat scores keep everything; the cut never goes below `minKeep`.
 */
export function elbowCut(scores: number[], options: Omit<ApertureOptions, 'minScore'> = defaultAperture): number {
  const n = scores.length;
  if (n < options.minCandidates) return n;
  const first = scores[0]!;
  const last = scores[n - 1]!;
  const spread = first - last;
  if (spread < options.flatSpread) return n;
  let best = -1;
  let knee = n - 1;
  for (let i = 0; i < n; i++) {
    const x = i / (n - 1);
    const y = (scores[i]! - last) / spread; // 1 at the top, 0 at the bottom
    const chord = 1 - x;
    const below = chord - y; // distance below the chord (scaled by a constant)
    if (below > best) {
      best = below;
      knee = i;
    }
  }
  if (best < minElbowDepth) return n; // straight, concave or merely noisy: no elbow worth cutting at
  return Math.max(options.minKeep, knee + 1);
}

/**
 * The hybrid step both backends share: with the aperture, drop semantic neighbours under the
 * embedder's similarity floor and cut the rest at their elbow; fuse with the lexical list by RRF, the
 * semantic list weighted by `semanticWeight`; keep the top `limit`.
 */
export function fuseRetrievers(lexical: Ranked[], semantic: Ranked[], limit: number, aperture: ApertureOptions | null, semanticWeight = 1) {
  let kept = semantic;
  if (aperture) {
    kept = semantic.filter((h) => h.score >= aperture.minScore);
    kept = kept.slice(
      0,
      elbowCut(
        kept.map((h) => h.score),
        aperture,
      ),
    );
  }
  return {
    fused: reciprocalRankFusion({ lexical, semantic: kept }, rrfK, { semantic: semanticWeight }).slice(0, limit),
    counts: { lexical: lexical.length, semantic: semantic.length, semanticKept: kept.length },
  };
}
