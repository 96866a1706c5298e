import type { ArtifactDoc, ArtifactStore } from '../store/artifacts.js';
import type { SearchChangeStore } from '../store/search-changes.js';
import { contentHash, embeddingText, storedVector, vectorForStorage } from './documents.js';
import type { Embedder } from './embedder.js';

export type EmbedOutcome = 'embedded' | 'unchanged' | 'superseded';

/** Texts per embedder call: one round trip for many artifacts, small enough for any endpoint. */
const batchSize = 64;

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
  // One update per artifact, all at once (each conditional on its revision), then one change record for those stored.
  const stored = await Promise.all(
    docs.map((doc, i) =>
      artifacts.storeEmbedding(doc._id, doc.revision, {
        embedder: embedder.id,
        content_hash: hashes[i]!,
        vector: vectors.get(i) ?? vectorForStorage(storedVector(doc.search!.vector)),
        revision: doc.revision,
        embedded_at: new Date(),
      }),
    ),
  );
  await changes.record(...docs.filter((_, i) => stored[i]).map((d) => d._id));
  return docs.map((_, i) => (!stored[i] ? 'superseded' : reusable[i] ? 'unchanged' : 'embedded'));
}
