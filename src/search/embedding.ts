/** Turns texts into unit-length vectors. The id names model and dimensions: vectors of another id are recomputed. */
export interface Embedder {
  readonly id: string;
  readonly dimensions: number;
  /** Cosine similarity under which this embedder's neighbours are unrelated (the aperture's default floor). */
  readonly similarityFloor: number;
  /**
   * The weight of this embedder's ranking in RRF, the lexical ranking's being 1 (issue #23): a weaker
   * retriever counts for less. Measured on Cranfield and CACM for the models we ship (bench:search).
   */
  readonly fusionWeight: number;
  embed(texts: string[]): Promise<Float32Array[]>;
}

export function normalize(v: Float32Array): Float32Array {
  let norm = 0;
  for (const x of v) norm += x * x;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < v.length; i++) v[i]! /= norm;
  return v;
}
