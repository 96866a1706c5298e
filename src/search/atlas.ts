import type { Collection, Document } from 'mongodb';
import { contentTypeMatch, type ArtifactDoc } from '../store/artifacts.js';
import { fuseWithMissingVectors } from './missing-vectors.js';
import type { Ranked } from './rrf-fusion.js';
import type { SearchableDoc, SearchOutcome, SearchQuery } from './memory-index.js';
import { boostPresets } from './presets.js';

interface AtlasConfig {
  ATLAS_SEARCH_INDEX: string;
  ATLAS_VECTOR_INDEX: string;
  EMBEDDINGS_DIMENSIONS: number;
}

/** The embedder whose vectors count: a vector of another embedder, or of an older revision, is stale. */
export interface VectorSource {
  embedderId: string;
}

/** Content-type patterns as a $match on the stored content_type (after $search, which cannot regex it). */
function typeMatch(patterns: string[] | null): Document | null {
  if (patterns === null || patterns.some((p) => p === '*' || p === '*/*')) return null;
  return { $or: patterns.map(contentTypeMatch) };
}

const hitFields = { _id: 1, title: 1, content_type: 1, collection_id: 1, container_kind: 1, revision: 1, 'context.description': 1 };

function scopeStages(query: SearchQuery): Document[] {
  return [typeMatch(query.scope.contentTypes), typeMatch(query.scope.typeLimits)]
    .filter((m): m is Document => m !== null)
    .map((m) => ({ $match: m }));
}

/** Atlas Search: a compound `should` of per-field text clauses boosted by the preset, filtered to the caller's containers. */
export function lexicalPipeline(query: SearchQuery, config: AtlasConfig, source?: VectorSource): Document[] {
  const boosts = boostPresets[query.preset];
  const paths = { title: 'title', description: 'context.description', content: 'content' } as const;
  return [
    {
      $search: {
        index: config.ATLAS_SEARCH_INDEX,
        compound: {
          should: (Object.keys(paths) as (keyof typeof paths)[])
            .filter((field) => boosts[field] > 0)
            .map((field) => ({ text: { query: query.text, path: paths[field], score: { boost: { value: boosts[field] } } } })),
          filter: [{ in: { path: 'collection_id', value: [...query.scope.containerIds] } }],
          minimumShouldMatch: 1,
        },
      },
    },
    { $match: { archived_at: { $exists: false } } }, // archived drafts are not found
    ...scopeStages(query),
    { $limit: query.candidates },
    {
      $project: {
        ...hitFields,
        score: { $meta: 'searchScore' },
        // Whether the hit's vector is current (what vectorPipeline's $match lets through): missing-vectors.ts.
        ...(source
          ? { has_vector: { $and: [{ $eq: ['$search.embedder', source.embedderId] }, { $eq: ['$search.revision', '$revision'] }] } }
          : {}),
      },
    },
  ];
}

/** Atlas Vector Search over `search.vector`, pre-filtered to the caller's containers. */
export function vectorPipeline(query: SearchQuery, config: AtlasConfig, source: VectorSource): Document[] {
  return [
    {
      $vectorSearch: {
        index: config.ATLAS_VECTOR_INDEX,
        path: 'search.vector',
        queryVector: Array.from(query.vector ?? []),
        numCandidates: Math.min(10_000, query.candidates * 10),
        limit: query.candidates,
        filter: { collection_id: { $in: [...query.scope.containerIds] } },
      },
    },
    {
      $match: { 'search.embedder': source.embedderId, $expr: { $eq: ['$search.revision', '$revision'] }, archived_at: { $exists: false } },
    },
    ...scopeStages(query),
    // Atlas scores cosine as (1 + cos) / 2: back to cosine, the scale of the similarity floor.
    { $project: { ...hitFields, score: { $subtract: [{ $multiply: [2, { $meta: 'vectorSearchScore' }] }, 1] } } },
  ];
}

/** The index definitions the two pipelines need (created at start when missing). */
export function atlasIndexDefinitions(config: AtlasConfig) {
  return [
    {
      name: config.ATLAS_SEARCH_INDEX,
      type: 'search',
      definition: {
        mappings: {
          dynamic: false,
          fields: {
            title: { type: 'string' },
            content: { type: 'string' },
            context: { type: 'document', fields: { description: { type: 'string' } } },
            collection_id: { type: 'token' },
            content_type: { type: 'token' },
          },
        },
      },
    },
    {
      name: config.ATLAS_VECTOR_INDEX,
      type: 'vectorSearch',
      definition: {
        fields: [
          { type: 'vector', path: 'search.vector', numDimensions: config.EMBEDDINGS_DIMENSIONS, similarity: 'cosine' },
          { type: 'filter', path: 'collection_id' },
        ],
      },
    },
  ];
}

/** The scale-out backend: Atlas Search and Atlas Vector Search, fused in the app with the same RRF (k = 60). */
export class AtlasSearchBackend {
  constructor(
    private readonly artifacts: Collection<ArtifactDoc>,
    private readonly config: AtlasConfig,
    private readonly source: () => VectorSource,
  ) {}

  async ensureIndexes(): Promise<void> {
    const existing = new Set((await this.artifacts.listSearchIndexes().toArray()).map((i) => i.name as string));
    for (const index of atlasIndexDefinitions(this.config)) {
      if (!existing.has(index.name)) await this.artifacts.createSearchIndex(index);
    }
  }

  async search(query: SearchQuery): Promise<SearchOutcome> {
    if (query.scope.containerIds.size === 0) return { hits: [], lexical: 0, semantic: 0, semanticKept: 0 };
    const [lexicalDocs, vectorDocs] = await Promise.all([
      this.artifacts.aggregate(lexicalPipeline(query, this.config, this.source())).toArray(),
      query.vector ? this.artifacts.aggregate(vectorPipeline(query, this.config, this.source())).toArray() : Promise.resolve([]),
    ]);
    const docs = new Map<string, SearchableDoc>();
    const vectored = new Set<string>([...lexicalDocs.filter((d) => d.has_vector === true), ...vectorDocs].map((d) => d._id as string));
    const ranked = (list: Document[]): Ranked[] =>
      list.map((d) => {
        docs.set(d._id, {
          id: d._id,
          title: d.title,
          description: d.context?.description ?? '',
          content: '',
          content_type: d.content_type,
          collection_id: d.collection_id,
          container_kind: d.container_kind,
          revision: d.revision,
        });
        return { id: d._id as string, score: d.score as number };
      });
    // A lexical hit whose vector is not stored yet keeps its lexical-only place (missing-vectors.ts).
    const { fused, counts } = fuseWithMissingVectors(
      ranked(lexicalDocs),
      query.vector ? ranked(vectorDocs) : null,
      (id) => vectored.has(id),
      query.limit,
      query.aperture,
      query.semanticWeight,
    );
    return { hits: fused.map((f) => ({ ...f, doc: docs.get(f.id)! })), ...counts };
  }
}
