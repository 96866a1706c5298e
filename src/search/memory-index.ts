import { mimeMatches } from '../identity/principal.js';
import { Bm25Index, type Within } from './bm25.js';
import { type ApertureOptions, type Ranked } from './rrf-fusion.js';
import { fuseWithMissingVectors } from './missing-vectors.js';
import { boostPresets, type BoostPreset } from './presets.js';
import { AnnScheduler } from './ann-builds.js';
import { ScopedVectorIndex } from './scoped-vectors.js';

/** What the index keeps of an artifact. */
export interface SearchableDoc {
  id: string;
  title: string;
  description: string;
  content: string;
  content_type: string;
  collection_id: string;
  container_kind: 'workspace' | 'collection';
  revision: number;
  /** Archived drafts stay indexed (so a stale read of an older revision cannot bring them back) but are never found. */
  archived?: boolean;
  /** Absent until the embedding activity has run for this revision. */
  vector?: Float32Array;
}

export interface SearchQuery {
  text: string;
  vector: Float32Array | null;
  limit: number;
  preset: BoostPreset;
  /** How many hits each retriever contributes to fusion. */
  candidates: number;
  /** null: no aperture cut. */
  aperture: ApertureOptions | null;
  /** The semantic ranking's weight in RRF (the lexical one's is 1). */
  semanticWeight: number;
  scope: SearchScope;
}

/** The only artifacts a caller may find: in these containers, of these content types. */
export interface SearchScope {
  containerIds: ReadonlySet<string>;
  /** Content types the request asked for (patterns); null: any. */
  contentTypes: string[] | null;
  /** Content types the caller's scopes allow (patterns); null: any. */
  typeLimits: string[] | null;
}

/** Whether a document is one the scope lets its caller find; built once a query, called per candidate. */
export function scopeFilter(scope: SearchScope): (doc: Pick<SearchableDoc, 'collection_id' | 'content_type' | 'archived'>) => boolean {
  const { containerIds, contentTypes, typeLimits } = scope;
  if (contentTypes === null && typeLimits === null) return (doc) => doc.archived !== true && containerIds.has(doc.collection_id);
  const matches = (patterns: string[] | null, type: string) => patterns === null || patterns.some((p) => mimeMatches(p, type));
  return (doc) =>
    doc.archived !== true &&
    containerIds.has(doc.collection_id) &&
    matches(contentTypes, doc.content_type) &&
    matches(typeLimits, doc.content_type);
}

export interface SearchHit {
  id: string;
  doc: SearchableDoc;
  score: number;
  /** `imputed`: its vector not stored yet, it keeps its lexical-only place; the semantic entry says where the semantic side would put it (missing-vectors.ts). */
  retrievers: Record<string, { rank: number; score: number; imputed?: true }>;
}

export interface SearchOutcome {
  hits: SearchHit[];
  lexical: number;
  semantic: number;
  /** Semantic neighbours kept by the aperture (before fusion). */
  semanticKept: number;
}

/** Only so much of a huge artifact is indexed: enough to find it, bounded memory. */
const maxIndexedChars = 100_000;

/**
 * The single-node search backend: BM25F over title, description and content with the project's
 * analyzer, exact kNN over unit vectors, fused by RRF (k = 60).
 */
export class MemorySearchIndex {
  private readonly docs = new Map<string, SearchableDoc>();
  private readonly lexical = new Bm25Index();
  private readonly vectors: ScopedVectorIndex;
  private readonly builds: AnnScheduler;
  /** Ids by container: a search reads only its scope's. */
  private readonly members = new Map<string, Set<string>>();

  /**
   * `annThreshold`: from this many vectors on, a container's kNN is answered by an HNSW index first.
   * `onBuildThreadError`: told when an HNSW build thread fails (that index is then built on this thread).
   */
  constructor(
    readonly dimensions: number,
    annThreshold?: number,
    onBuildThreadError?: (err: Error) => void,
  ) {
    this.builds = new AnnScheduler(onBuildThreadError);
    this.vectors = new ScopedVectorIndex(dimensions, annThreshold, this.builds);
  }

  get size(): number {
    return this.docs.size;
  }

  /** What the last search read: postings or documents lexically, vectors semantically (tests hold these to the scope). */
  get lastSearchCost(): { lexical: number; semantic: number } {
    return { lexical: this.lexical.lastSearchCost, semantic: this.vectors.lastSearchCost };
  }

  get vectorCount(): number {
    return this.vectors.size;
  }

  get(id: string): SearchableDoc | undefined {
    return this.docs.get(id);
  }

  hasVector(id: string): boolean {
    return this.vectors.has(id);
  }

  /** kNN recall@k of what search uses against an exact scan, over these query vectors. */
  vectorRecall(queries: Float32Array[], k: number): number {
    let found = 0;
    for (const q of queries) {
      const truth = new Set(this.vectors.exactSearch(q, k).map((h) => h.id));
      found += this.vectors.search(q, k, new Set(this.members.keys()), null).filter((h) => truth.has(h.id)).length;
    }
    return queries.length === 0 ? 1 : found / (queries.length * k);
  }

  /**
   * Loads many documents; the HNSW indexes are built after, on threads of their own, and answer once
   * built (`whenBuilt`); until then the exact scan of each scope answers.
   */
  bulkLoad(load: () => Promise<void> | void): Promise<void> {
    this.vectors.beginBulk();
    return Promise.resolve(load()).finally(() => this.vectors.endBulk());
  }

  /** Resolves once every HNSW index asked for so far is built (true), or building stopped (false). */
  whenBuilt(): Promise<boolean> {
    return this.builds.whenIdle();
  }

  /** Builds them now, holding the event loop: for benchmarks and tests. */
  finishBuilds(): void {
    this.builds.drain();
  }

  /** Stops building: the index is dropped. */
  close(): void {
    this.builds.stop();
  }

  upsert(doc: SearchableDoc): void {
    const held = this.docs.get(doc.id);
    if (held) this.leave(held);
    if (doc.archived) {
      // Never found: only its revision is kept, so a stale read cannot bring it back.
      this.lexical.remove(doc.id);
      this.vectors.remove(doc.id);
    } else {
      this.lexical.upsert(
        doc.id,
        { title: doc.title, description: doc.description, content: doc.content.slice(0, maxIndexedChars) },
        doc.collection_id,
      );
      if (doc.vector) this.vectors.upsert(doc.id, doc.collection_id, doc.vector);
      else this.vectors.remove(doc.id); // a stale vector would describe the previous revision
      let members = this.members.get(doc.collection_id);
      if (!members) this.members.set(doc.collection_id, (members = new Set()));
      members.add(doc.id);
    }
    const { vector: _inMatrix, content: _inLexical, ...meta } = doc;
    this.docs.set(doc.id, { ...meta, content: '' }); // the text and vector live in their indexes only
  }

  remove(id: string): void {
    const held = this.docs.get(id);
    if (held) this.leave(held);
    this.lexical.remove(id);
    this.vectors.remove(id);
    this.docs.delete(id);
  }

  private leave(doc: SearchableDoc): void {
    const members = this.members.get(doc.collection_id);
    members?.delete(doc.id);
    if (members?.size === 0) this.members.delete(doc.collection_id);
  }

  /** The findable ids in the scope's containers, how many they are, and which of them the scope's types let through. */
  private within(scope: SearchScope, accept: ((id: string) => boolean) | null): Within {
    const sets = [...scope.containerIds].flatMap((id) => this.members.get(id) ?? []);
    return {
      containers: scope.containerIds,
      accept,
      size: sets.reduce((sum, set) => sum + set.size, 0),
      ids: (function* () {
        for (const set of sets) yield* set;
      })(),
    };
  }

  search(query: SearchQuery): SearchOutcome {
    const { scope } = query;
    const inScope = scopeFilter(scope);
    const accept = (id: string) => {
      const doc = this.docs.get(id);
      return doc !== undefined && inScope(doc);
    };
    // What reads only the scope's containers needs no check at all unless the scope limits types.
    const typed = scope.contentTypes !== null || scope.typeLimits !== null ? accept : null;
    const lexical = this.lexical.search(query.text, boostPresets[query.preset], query.candidates, accept, this.within(scope, typed));
    const semantic: Ranked[] | null = query.vector ? this.vectors.search(query.vector, query.candidates, scope.containerIds, typed) : null;
    // A lexical candidate whose vector is not stored yet keeps its lexical-only place (missing-vectors.ts).
    const { fused, counts } = fuseWithMissingVectors(
      lexical,
      semantic,
      (id) => this.vectors.has(id),
      query.limit,
      query.aperture,
      query.semanticWeight,
    );
    return { hits: fused.map((f) => ({ ...f, doc: this.docs.get(f.id)! })), ...counts };
  }
}
