import MiniSearch from 'minisearch';
import { mimeMatches } from '../auth/principal.js';
import { processTerm, tokenize } from './analyzer.js';
import { fuseRetrievers, type ApertureOptions, type Ranked } from './fusion.js';
import { boostPresets, type BoostPreset } from './presets.js';
import { ExactVectorIndex } from './vectors.js';

/** What the index keeps of an artifact. */
export interface SearchableDoc {
  id: string;
  title: string;
  description: string;
  content: string;
  content_type: string;
  collection_id: string;
  container_kind: 'workspace' | 'collection';
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

export function inScope(scope: SearchScope, doc: Pick<SearchableDoc, 'collection_id' | 'content_type'>): boolean {
  const matches = (patterns: string[] | null) => patterns === null || patterns.some((p) => mimeMatches(p, doc.content_type));
  return scope.containerIds.has(doc.collection_id) && matches(scope.contentTypes) && matches(scope.typeLimits);
}

export interface SearchHit {
  id: string;
  doc: SearchableDoc;
  score: number;
  retrievers: Record<string, { rank: number; score: number }>;
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
 * The single-node search backend: MiniSearch (BM25+) over title, description and content with the
 * project's analyzer, exact kNN over unit vectors, fused by RRF (k = 60).
 */
export class MemorySearchIndex {
  private readonly docs = new Map<string, SearchableDoc>();
  private readonly lexical: MiniSearch<{ id: string; title: string; description: string; content: string }>;
  private readonly vectors: ExactVectorIndex;

  constructor(readonly dimensions: number) {
    this.lexical = new MiniSearch({
      fields: ['title', 'description', 'content'],
      tokenize,
      processTerm,
      searchOptions: { tokenize, processTerm, combineWith: 'OR', bm25: { k: 1.2, b: 0.75, d: 0.5 } },
    });
    this.vectors = new ExactVectorIndex(dimensions);
  }

  get size(): number {
    return this.docs.size;
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

  upsert(doc: SearchableDoc): void {
    const fields = { id: doc.id, title: doc.title, description: doc.description, content: doc.content.slice(0, maxIndexedChars) };
    if (this.lexical.has(doc.id)) this.lexical.replace(fields);
    else this.lexical.add(fields);
    if (doc.vector) this.vectors.upsert(doc.id, doc.vector);
    else this.vectors.remove(doc.id); // a stale vector would describe the previous revision
    const { vector: _inMatrix, content: _inLexical, ...meta } = doc;
    this.docs.set(doc.id, { ...meta, content: '' }); // the text and vector live in their indexes only
  }

  remove(id: string): void {
    if (this.lexical.has(id)) this.lexical.discard(id);
    this.vectors.remove(id);
    this.docs.delete(id);
  }

  search(query: SearchQuery): SearchOutcome {
    const accept = (id: string) => {
      const doc = this.docs.get(id);
      return doc !== undefined && inScope(query.scope, doc);
    };
    const lexical: Ranked[] = this.lexical
      .search(query.text, { boost: { ...boostPresets[query.preset] }, filter: (r) => accept(r.id as string) })
      .slice(0, query.candidates)
      .map((r) => ({ id: r.id as string, score: r.score }));
    const semantic: Ranked[] = query.vector ? this.vectors.search(query.vector, query.candidates, accept) : [];
    const { fused, counts } = fuseRetrievers(lexical, semantic, query.limit, query.aperture);
    return { hits: fused.map((f) => ({ ...f, doc: this.docs.get(f.id)! })), ...counts };
  }
}
