import type { Db } from 'mongodb';
import type { WorkspaceEvent } from '../events/types.js';
import { contentHash, embeddingText } from '../search/documents.js';
import type { Embedder } from '../search/embedder.js';
import { ArtifactStore } from '../store/artifacts.js';
import { EventStore } from '../store/events.js';
import { SearchChangeStore } from '../store/search-changes.js';

/** Activities: all I/O the workflows need, bound to the worker's MongoDB and embedder. */
export function createActivities(db: Db, embedder: Embedder) {
  const events = new EventStore(db);
  const artifacts = new ArtifactStore(db);
  const changes = new SearchChangeStore(db);
  return {
    async recordWorkspaceEvents(batch: WorkspaceEvent[]): Promise<void> {
      await events.record(batch);
    },

    /**
     * Embeds one revision of an artifact and stores the vector with it. Skips a revision that is no
     * longer current, and reuses the vector when the text did not change (only a title moved, say).
     */
    async embedArtifact(input: { artifactId: string; revision: number }): Promise<'embedded' | 'unchanged' | 'superseded'> {
      const doc = await artifacts.get(input.artifactId);
      if (!doc || doc.revision !== input.revision) return 'superseded';
      const text = embeddingText(doc);
      const hash = contentHash(text);
      const previous = doc.search;
      const vector = previous && previous.embedder === embedder.id && previous.content_hash === hash ? previous.vector : Array.from((await embedder.embed([text]))[0]!);
      const stored = await artifacts.storeEmbedding(doc._id, doc.revision, {
        embedder: embedder.id,
        content_hash: hash,
        vector,
        revision: doc.revision,
        embedded_at: new Date(),
      });
      if (!stored) return 'superseded';
      await changes.record(doc._id);
      return vector === previous?.vector ? 'unchanged' : 'embedded';
    },
  };
}
