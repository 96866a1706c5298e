import { Context, log } from '@temporalio/activity';
import { embedArtifacts, type EmbedOutcome } from '../search/embed-artifacts.js';
import type { Embedder } from '../search/embedder.js';
import type { ArtifactDoc, ArtifactStore } from '../store/artifacts.js';
import type { EmbeddingBacklog } from '../store/embedding-backlog.js';
import type { SearchChangeStore } from '../store/search-changes.js';
import type { EmbedBatchOutcome, WrittenRevision } from '../workflows/contracts/index-backlog.js';
import type { IndexArtifactInput } from '../workflows/contracts/index-artifact.js';

/**
 * Artifacts embedded and stored together within a batch. MiniLM's throughput is the same for any slice
 * (it runs one text per inference), so small slices cost nothing and bring each vector to search
 * sooner: a slice's vectors are stored while the next slice is embedded (MiniLM infers in its own
 * thread, search/minilm.ts), so the store adds no wait.
 */
const storeSlice = 4;
/** Slices under way at once: one embedding while the one before it is stored. */
const slicesInFlight = 2;

/** The activities of `indexBacklog` (batches) and of `indexArtifact` (one revision, for runs started before). */
export function createIndexingActivities(deps: {
  artifacts: ArtifactStore;
  changes: SearchChangeStore;
  embedder: Embedder;
  backlog: EmbeddingBacklog;
}) {
  /**
   * The batch in one go; if that fails, each artifact alone. When every one fails too, the embedder is
   * down: the activity fails and is retried with backoff, its entries kept. When only some fail, those
   * texts are what the embedder refuses: they are left lexical-only (they still rank by their lexical
   * score, search/missing-vectors.ts) and their next write queues them again.
   */
  async function embedEach(docs: ArtifactDoc[]): Promise<EmbedOutcome[]> {
    try {
      return await embedArtifacts(docs, deps);
    } catch (batchErr) {
      if (docs.length === 1) throw batchErr;
      const each = await Promise.allSettled(docs.map((doc) => embedArtifacts([doc], deps)));
      if (each.every((r) => r.status === 'rejected')) throw batchErr;
      return each.map((r, i) => {
        if (r.status === 'fulfilled') return r.value[0]!;
        log.warn('artifact not embedded: left lexical-only until its next write', {
          artifactId: docs[i]!._id,
          revision: docs[i]!.revision,
          error: (r.reason as Error).message,
        });
        return 'superseded';
      });
    }
  }

  return {
    /** Embeds one revision of an artifact, unless it is no longer current. */
    async embedArtifact(input: IndexArtifactInput): Promise<EmbedOutcome> {
      const doc = await deps.artifacts.get(input.artifactId);
      if (!doc || doc.revision !== input.revision) return 'superseded';
      return (await embedArtifacts([doc], deps))[0]!;
    },

    /** Puts signalled revisions into the backlog (idempotent: one entry per revision). */
    async queueEmbeddings(revisions: WrittenRevision[]): Promise<void> {
      await deps.backlog.add(revisions);
    },

    /**
     * Takes up to `limit` backlog entries, embeds their artifacts at the current revision (one model
     * call for the batch; a text that did not change keeps its vector), stores the vectors, then
     * removes the entries. Killed midway, it removed nothing: the next attempt does it again, and
     * what was stored already comes back as unchanged.
     */
    async embedQueued(input: { limit: number }): Promise<EmbedBatchOutcome> {
      // Alive while this process is: a worker killed mid-batch is noticed by its missed heartbeat, not after the whole timeout.
      const context = Context.current();
      const beat = setInterval(() => context.heartbeat(), 2_000);
      try {
        return await embedBatch(input.limit);
      } finally {
        clearInterval(beat);
      }
    },
  };

  async function embedBatch(limit: number): Promise<EmbedBatchOutcome> {
    const entries = await deps.backlog.take(limit);
    const ids = [...new Set(entries.map((e) => e.artifact_id))];
    const docs = ids.length > 0 ? await deps.artifacts.getMany(ids) : [];
    // In slices, each stored and its entries removed on its own: a search sees the first vectors of a
    // batch a slice's time after it began, and a crash loses at most the slices under way.
    const perSlice: EmbedOutcome[][] = [];
    const running = new Set<Promise<void>>();
    let failure: { err: unknown } | undefined;
    for (let i = 0, k = 0; i < docs.length && !failure; i += storeSlice, k++) {
      const slice = docs.slice(i, i + storeSlice);
      const step: Promise<void> = (async () => {
        perSlice[k] = await embedEach(slice);
        const done = new Set(slice.map((d) => d._id));
        await deps.backlog.done(entries.filter((e) => done.has(e.artifact_id)).map((e) => e._id));
      })()
        .catch((err: unknown) => void (failure ??= { err }))
        .finally(() => running.delete(step));
      running.add(step);
      if (running.size >= slicesInFlight) await Promise.race(running);
    }
    await Promise.all(running);
    if (failure) throw failure.err;
    const outcomes = perSlice.flat();
    const found = new Set(docs.map((d) => d._id));
    await deps.backlog.done(entries.filter((e) => !found.has(e.artifact_id)).map((e) => e._id)); // deleted meanwhile
    const count = (o: EmbedOutcome) => outcomes.filter((x) => x === o).length;
    return {
      taken: entries.length,
      embedded: count('embedded'),
      unchanged: count('unchanged'),
      // A deleted artifact's entries count here too: there was nothing left to embed.
      superseded: count('superseded') + (ids.length - docs.length),
      more: entries.length === limit,
    };
  }
}
