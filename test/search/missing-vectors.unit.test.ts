import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fuseWithMissingVectors, withMissingVectors } from '../../src/search/missing-vectors.js';
import { MemorySearchIndex, type SearchableDoc, type SearchQuery } from '../../src/search/memory-index.js';
import { defaultAperture } from '../../src/search/rrf-fusion.js';
import { lexicalPipeline } from '../../src/search/atlas.js';

const ranked = (...ids: string[]) => ids.map((id, i) => ({ id, score: 1 - i / 10 }));

describe('documents whose vector is missing (issue #23)', () => {
  it('ranks a lexical candidate without a vector semantically at its lexical rank', () => {
    const lexical = ranked('a', 'b', 'c', 'd');
    const semantic = ranked('x', 'c', 'y'); // a and d have no vector
    const has = (id: string) => !['a', 'd'].includes(id);
    assert.deepEqual(
      withMissingVectors(lexical, semantic, has).map((h) => h.id),
      ['a', 'x', 'c', 'd', 'y'],
    );
    // The stand-in's score is its neighbour's above (at the top: the first neighbour's), so the aperture treats it alike.
    const out = withMissingVectors(lexical, semantic, has);
    assert.equal(out[0]!.score, semantic[0]!.score);
    assert.equal(out[3]!.score, out[2]!.score);
  });

  it('changes nothing when every candidate has its vector', () => {
    const semantic = ranked('x', 'c');
    assert.equal(
      withMissingVectors(ranked('c'), semantic, () => true),
      semantic,
    );
  });

  it('fuses to exactly the lexical order when no vector exists yet, and marks the stand-ins', () => {
    const lexical = ranked('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i');
    const { fused, counts } = fuseWithMissingVectors(lexical, [], () => false, 10, defaultAperture, 0.5);
    assert.deepEqual(
      fused.map((f) => f.id),
      lexical.map((h) => h.id),
    );
    assert.equal(fused[0]!.retrievers.semantic?.imputed, true);
    assert.equal(counts.semantic, 0, 'only real neighbours are counted');
  });

  it('does not push an unembedded document below embedded ones in the memory index', () => {
    const index = new MemorySearchIndex(2);
    const doc = (id: string, title: string, vector?: number[]): SearchableDoc => ({
      id,
      title,
      description: '',
      content: '',
      content_type: 'text/plain',
      collection_id: 'c',
      container_kind: 'collection',
      revision: 1,
      ...(vector ? { vector: Float32Array.from(vector) } : {}),
    });
    index.upsert(doc('best', 'wing flutter wing flutter')); // the best lexical match, not embedded yet
    index.upsert(doc('other', 'wing flutter analysis of panels', [1, 0]));
    index.upsert(doc('far', 'panels', [1, 0]));
    const query: SearchQuery = {
      text: 'wing flutter',
      vector: Float32Array.from([1, 0]),
      limit: 10,
      preset: 'balanced',
      candidates: 10,
      aperture: null,
      semanticWeight: 1,
      scope: { containerIds: new Set(['c']), contentTypes: null, typeLimits: null },
    };
    const hits = index.search(query).hits;
    assert.equal(hits[0]!.id, 'best');
    assert.equal(hits[0]!.retrievers.semantic?.imputed, true);
    assert.equal(hits.find((h) => h.id === 'other')!.retrievers.semantic?.imputed, undefined);
  });

  it('has Atlas say which lexical hits have a current vector (the same test as the vector pipeline)', () => {
    const query: SearchQuery = {
      text: 'wing',
      vector: null,
      limit: 10,
      preset: 'balanced',
      candidates: 10,
      aperture: null,
      semanticWeight: 1,
      scope: { containerIds: new Set(['c']), contentTypes: null, typeLimits: null },
    };
    const config = { ATLAS_SEARCH_INDEX: 's', ATLAS_VECTOR_INDEX: 'v', EMBEDDINGS_DIMENSIONS: 2 };
    const project = lexicalPipeline(query, config, { embedderId: 'm' }).at(-1) as { $project: Record<string, unknown> };
    assert.deepEqual(project.$project.has_vector, {
      $and: [{ $eq: ['$search.embedder', 'm'] }, { $eq: ['$search.revision', '$revision'] }],
    });
  });
});
