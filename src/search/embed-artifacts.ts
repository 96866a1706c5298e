import type { ArtifactDoc, ArtifactStore } from '../store/artifacts.js';
import type { SearchChangeStore } from '../store/search-changes.js';
import { contentHash, embeddingText, storedVector, vectorForStorage } from './documents.js';
import type { Embedder } from './embedder.js';

export type EmbedOutcome = 'embedded' | 'unchanged' | 'superseded';

/** Texts per embedder call: one round trip for many artifacts, small enough for any endpoint. */
const batchSize = 32;

/**
 * Embeds artifacts at their current revision and stores each vector with its artifact. Reuses the
 * stored vector when the text did not change (only a revision moved), and skips a revision that was
 * superseded meanwhile.
 */
export async function embedArtifacts(
  docs: ArtifactDoc[],
  deps: { artifacts: ArtifactStore; changes: SearchChangeStore; embedder: Embedder },
): Promise<EmbedOutcome[]> {
  const { artifacts, changes, embedder } = deps;
  const texts = docs.map(embeddingText);
  const hashes = texts.map(contentHash);
  const reusable = docs.map((d, i) => d.search?.embedder === embedder.id && d.search.content_hash === hashes[i]);
  const missing = docs.map((_, i) => i).filter((i) => !reusable[i]);
  const vectors = new Map<number, ReturnType<typeof vectorForStorage>>();
  for (let start = 0; start < missing.length; start += batchSize) {
    const slice = missing.slice(start, start + batchSize);
    const embedded = await embedder.embed(slice.map((i) => texts[i]!));
    slice.forEach((i, j) => vectors.set(i, vectorForStorage(embedded[j]!)));
  }
  const outcomes: EmbedOutcome[] = [];
  for (const [i, doc] of docs.entries()) {
    const vector = vectors.get(i) ?? vectorForStorage(storedVector(doc.search!.vector));
    const stored = await artifacts.storeEmbedding(doc._id, doc.revision, {
      embedder: embedder.id,
      content_hash: hashes[i]!,
      vector,
      revision: doc.revision,
      embedded_at: new Date(),
    });
    if (stored) await changes.record(doc._id);
    outcomes.push(!stored ? 'superseded' : reusable[i] ? 'unchanged' : 'embedded');
  }
  return outcomes;
}
