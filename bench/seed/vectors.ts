// Vectors for seeded artifacts. Embedding 100,000 texts with MiniLM takes hours on two cores (about
// 80 ms a text of 256 tokens on one core, measured), and even the hashing embedder about 1.4 ms a text,
// so the seeder embeds a pool of real texts with the platform's own embedder and gives each artifact
// one of the pool's vectors moved by a small random offset (cosine about 0.85 to it), renormalised:
// vectors of the platform's embedder id and dimensions, distinct, clustered the way that embedder
// clusters texts. The artifact's `content_hash` is its own text's, so nothing treats the vector as stale.
import type { Embedder } from '../../src/search/embedding.js';
import { normalize } from '../../src/search/embedding.js';

export interface VectorSource {
  /** The embedder id the vectors are stored under (the platform's). */
  embedderId: string;
  /** How the vectors were made, for the report. */
  how: string;
  next(): Float32Array;
}

export async function pooledVectors(
  embedder: Embedder,
  poolTexts: string[],
  random: () => number,
  /** Cosine of an artifact's vector to its pool vector. */
  closeness = 0.85,
): Promise<VectorSource> {
  const pool: Float32Array[] = [];
  for (let i = 0; i < poolTexts.length; i += 32) pool.push(...(await embedder.embed(poolTexts.slice(i, i + 32))));
  const d = embedder.dimensions;
  // |noise|² ≈ d·σ², so cos ≈ 1/√(1 + d·σ²).
  const sigma = Math.sqrt((1 / closeness ** 2 - 1) / d);
  const gauss = () => {
    const u = 1 - random();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
  };
  return {
    embedderId: embedder.id,
    how: `${poolTexts.length} texts embedded by ${embedder.id}, each artifact's vector one of them plus noise (cosine ≈ ${closeness})`,
    next() {
      const base = pool[Math.floor(random() * pool.length)]!;
      const v = new Float32Array(d);
      for (let i = 0; i < d; i++) v[i] = base[i]! + sigma * gauss();
      return normalize(v);
    },
  };
}
