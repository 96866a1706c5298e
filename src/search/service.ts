import type { Config } from '../kernel/config/env.js';
import type { Logger } from '../kernel/logging/logger.js';
import type { ArtifactDoc, ArtifactStore } from '../store/artifacts.js';
import { uuidv7Floor, uuidv7Time, type SearchChangeStore } from '../store/search-changes.js';
import { AtlasSearchBackend } from './atlas.js';
import { searchable } from './documents.js';
import type { Embedder } from './embedder.js';
import { MemorySearchIndex, type SearchOutcome, type SearchQuery } from './memory-index.js';

/** Changes written up to this long ago are read again on every poll: writers' clocks and commits interleave. */
const overlapMs = 5000;
/** The change log keeps this much history; a replica that could not poll for longer rebuilds. */
const retentionMs = 10 * 60_000;

const queryCacheSize = 1000;
const changePage = 1000;

/**
 * Keeps this replica's search index current and answers searches. Writes made here are applied at
 * once; writes and embeddings from elsewhere arrive through the change log, polled.
 */
export class SearchService {
  private index_: MemorySearchIndex | null = null;
  private embedder_: Embedder | null = null;
  private readonly atlas: AtlasSearchBackend | null;
  private timer: NodeJS.Timeout | null = null;
  private cursorMs = 0;
  private readonly applied = new Map<string, number>();
  private polls = 0;
  private polling: Promise<unknown> | null = null;
  private lastPoll = Date.now();
  private readonly queryVectors = new Map<string, Float32Array>();
  private readonly deletedIds = new Set<string>();

  constructor(
    private readonly deps: {
      config: Config;
      logger: Logger;
      artifacts: ArtifactStore;
      changes: SearchChangeStore;
      startIndexing: (doc: ArtifactDoc) => Promise<void>;
      artifactsCollection: () => import('mongodb').Collection<ArtifactDoc>;
    },
    private readonly loadEmbedder: () => Promise<Embedder>,
  ) {
    this.atlas =
      deps.config.SEARCH_BACKEND === 'atlas'
        ? new AtlasSearchBackend(deps.artifactsCollection(), deps.config, () => ({ embedderId: this.embedder.id }))
        : null;
  }

  get embedder(): Embedder {
    if (!this.embedder_) throw new Error('search service not started');
    return this.embedder_;
  }

  get index(): MemorySearchIndex {
    if (!this.index_) throw new Error('search service not started');
    return this.index_;
  }

  /** Loads the embedder and every artifact, then follows the change log (Atlas: ensures its indexes). */
  async start(): Promise<void> {
    this.embedder_ = await this.loadEmbedder();
    this.index_ = this.newIndex();
    if (this.atlas) return this.atlas.ensureIndexes();
    await this.rebuild();
    this.timer = setInterval(() => {
      if (this.polling) return; // the previous poll is still applying changes
      this.polling = this.poll()
        .catch((err) => this.deps.logger.error({ err }, 'search index sync failed'))
        .finally(() => (this.polling = null));
    }, this.deps.config.SEARCH_SYNC_INTERVAL_MS);
    this.timer.unref();
  }

  /** Stops following the change log, once a poll under way has finished. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.polling;
    this.index_?.close();
  }

  /**
   * Applies changes logged since the cursor (minus the overlap), page by page, each change once. A
   * replica that could not poll for longer than the log keeps has missed changes: it rebuilds.
   */
  async poll(): Promise<number> {
    if (Date.now() - this.lastPoll > retentionMs) await this.rebuild();
    let after = uuidv7Floor(this.cursorMs - overlapMs);
    let count = 0;
    for (;;) {
      const changes = await this.deps.changes.page(after, changePage);
      const fresh = changes.filter((change) => !this.applied.has(change._id));
      // Each changed artifact read once per page, by primary key (ArtifactStore.getMany): the page's changes
      // are applied as the artifacts are now, which is what reading them one by one in order gave.
      await this.refresh([...new Set(fresh.map((change) => change.artifact_id))]);
      for (const change of changes) {
        after = change._id;
        const at = uuidv7Time(change._id);
        if (!this.applied.has(change._id)) {
          this.applied.set(change._id, at);
          count++;
        }
        this.cursorMs = Math.max(this.cursorMs, at);
      }
      if (changes.length < changePage) break;
    }
    for (const [id, at] of this.applied) if (at < this.cursorMs - 2 * overlapMs) this.applied.delete(id);
    this.lastPoll = Date.now();
    if (++this.polls % 60 === 0) await this.deps.changes.prune(Date.now() - retentionMs);
    return count;
  }

  private async rebuild(): Promise<void> {
    this.cursorMs = Date.now();
    const fresh = this.newIndex();
    const previous = this.index_;
    this.index_ = fresh;
    try {
      await fresh.bulkLoad(async () => {
        for await (const doc of this.deps.artifacts.all()) this.apply(doc);
      });
    } catch (err) {
      this.index_ = previous; // keep serving the old index; the next poll tries again
      fresh.close();
      throw err;
    }
    previous?.close();
    this.lastPoll = Date.now();
    this.deps.logger.info({ artifacts: fresh.size, vectors: fresh.vectorCount }, 'search index built');
    // The HNSW indexes are built on threads of their own, after the API is up; exact scans answer meanwhile.
    const started = Date.now();
    void fresh.whenBuilt().then((built) => {
      if (built && fresh.vectorCount >= this.deps.config.SEARCH_ANN_THRESHOLD)
        this.deps.logger.info({ ms: Date.now() - started }, 'search HNSW indexes built');
    });
  }

  private newIndex(): MemorySearchIndex {
    return new MemorySearchIndex(this.embedder.dimensions, this.deps.config.SEARCH_ANN_THRESHOLD, (err) =>
      this.deps.logger.warn({ err: err.message }, 'HNSW build thread failed: built on the main thread instead'),
    );
  }

  private async refresh(artifactIds: string[]): Promise<void> {
    if (artifactIds.length === 0) return;
    const found = new Map((await this.deps.artifacts.getMany(artifactIds)).map((doc) => [doc._id, doc]));
    for (const id of artifactIds) {
      const doc = found.get(id);
      if (doc) this.apply(doc);
      else this.index.remove(id);
    }
  }

  /**
   * Indexes a document unless what the index holds is newer: a poll's read can land after a write
   * this replica already applied. A deleted artifact never comes back.
   */
  private apply(doc: ArtifactDoc): void {
    if (this.deletedIds.has(doc._id)) return;
    const held = this.index.get(doc._id);
    const next = searchable(doc, this.embedder.id);
    if (held && (held.revision > next.revision || (held.revision === next.revision && this.index.hasVector(doc._id) && !next.vector)))
      return;
    this.index.upsert(next);
  }

  /** After a write through this replica: index now, tell the other replicas, embed in a workflow. */
  async written(doc: ArtifactDoc): Promise<void> {
    if (!this.atlas) {
      this.apply(doc);
      this.ownChanges(await this.deps.changes.record(doc._id));
    }
    await this.deps.startIndexing(doc);
  }

  /**
   * Query embeddings, cached: people repeat searches, and a model call costs milliseconds. When the
   * embedder fails (an endpoint down), the search goes on lexical-only rather than failing.
   */
  private async queryVector(text: string): Promise<Float32Array | null> {
    const cached = this.queryVectors.get(text);
    if (cached) return cached;
    let vector: Float32Array | undefined;
    try {
      [vector] = await this.embedder.embed([text]);
    } catch (err) {
      this.deps.logger.warn({ err: (err as Error).message, embedder: this.embedder.id }, 'query not embedded: searching lexically only');
      return null;
    }
    if (!vector) return null;
    if (this.queryVectors.size >= queryCacheSize) this.queryVectors.delete(this.queryVectors.keys().next().value!);
    this.queryVectors.set(text, vector);
    return vector;
  }

  async deleted(artifactId: string): Promise<void> {
    if (this.atlas) return; // Atlas indexes follow the collection itself
    this.deletedIds.add(artifactId);
    if (this.deletedIds.size > 100_000) this.deletedIds.delete(this.deletedIds.values().next().value!);
    this.index.remove(artifactId);
    this.ownChanges(await this.deps.changes.record(artifactId));
  }

  /** Change-log entries this replica wrote for what it has applied already: its polls skip them (no read back). */
  private ownChanges(ids: string[]): void {
    for (const id of ids) this.applied.set(id, uuidv7Time(id));
  }

  /** The semantic ranking's weight in fusion: SEARCH_SEMANTIC_WEIGHT, else what the embedder was measured at. */
  get semanticWeight(): number {
    return this.deps.config.SEARCH_SEMANTIC_WEIGHT ?? this.embedder.fusionWeight;
  }

  async search(query: Omit<SearchQuery, 'vector' | 'semanticWeight'>): Promise<SearchOutcome> {
    const full = { ...query, vector: await this.queryVector(query.text), semanticWeight: this.semanticWeight };
    return this.atlas ? this.atlas.search(full) : this.index.search(full);
  }
}
