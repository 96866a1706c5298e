import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fuseWithMissingVectors, withMissingVectors } from '../../src/search/missing-vectors.js';
import { MemorySearchIndex, type SearchableDoc, type SearchQuery } from '../../src/search/memory-index.js';
import { defaultAperture, fuseRetrievers, type Ranked } from '../../src/search/rrf-fusion.js';
import { lexicalPipeline } from '../../src/search/atlas.js';

const ranked = (...ids: string[]) => ids.map((id, i) => ({ id, score: 1 - i / 10 }));

/** A seeded generator (mulberry32), for the property tests' random lists. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A lexical and a semantic list over 40 documents, overlapping, and which documents have vectors (each with probability `p`). */
function draw(random: () => number, p: number) {
  const pick = (n: number) =>
    [...Array(40).keys()]
      .map((i) => ({ id: `d${i}`, r: random() }))
      .sort((a, b) => a.r - b.r)
      .slice(0, n)
      .map((x, i) => ({ id: x.id, score: 1 - i / (n + 1) }));
  const lexical = pick(15);
  const vectored = new Set([...Array(40).keys()].filter(() => random() < p).map((i) => `d${i}`));
  const semantic = pick(25).filter((h) => vectored.has(h.id));
  return { lexical, semantic, has: (id: string) => vectored.has(id) };
}

describe('documents whose vector is missing (issues #23 and #33)', () => {
  it('reports a lexical candidate without a vector semantically at its lexical rank (the imputed entry)', () => {
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
    const random = seeded(1);
    for (let i = 0; i < 50; i++) {
      const { lexical, semantic: s } = draw(random, 1);
      for (const aperture of [defaultAperture, null])
        assert.deepEqual(
          fuseWithMissingVectors(lexical, s, () => true, 10, aperture, 0.5).fused,
          fuseRetrievers(lexical, s, 10, aperture, 0.5).fused,
        );
    }
  });

  it('keeps every lexical candidate without a vector at exactly its lexical-only place, at any coverage', () => {
    const random = seeded(2);
    for (let i = 0; i < 200; i++) {
      const { lexical, semantic, has } = draw(random, random());
      const { fused } = fuseWithMissingVectors(lexical, semantic, has, 20, i % 2 ? defaultAperture : null, 0.5);
      lexical.forEach((h, place) => {
        if (!has(h.id)) {
          assert.equal(fused[place]?.id, h.id, `draw ${i}: ${h.id} at ${place}`);
          assert.equal(fused[place]!.retrievers.semantic?.imputed, true);
        }
      });
      assert.equal(new Set(fused.map((f) => f.id)).size, fused.length, 'no document twice');
      fused.slice(1).forEach((f, k) => assert.ok(f.score <= fused[k]!.score, 'scores never rise down the list'));
    }
  });

  it('orders the vectored documents as fusion does, the semantic weight scaled by the coverage among lexical candidates', () => {
    // Half the lexical candidates have vectors: the semantic list counts half. At full weight 'x' (semantic
    // first, not a lexical candidate) would outrank 'c' (lexical third, not among the semantic neighbours); at half it does not.
    const lexical = ranked('a', 'b', 'c', 'd');
    const semantic: Ranked[] = [
      { id: 'x', score: 0.9 },
      { id: 'b', score: 0.8 },
    ];
    const has = (id: string) => ['b', 'c', 'x'].includes(id);
    const ids = fuseWithMissingVectors(lexical, semantic, has, 10, null, 1).fused.map((f) => f.id);
    const vectoredOrder = fuseRetrievers(lexical, semantic, 10, null, 0.5)
      .fused.map((f) => f.id)
      .filter(has);
    assert.deepEqual(ids.filter(has), vectoredOrder);
    assert.deepEqual(ids, ['a', 'b', 'c', 'd', 'x']);
    assert.deepEqual(
      fuseRetrievers(lexical, semantic, 10, null, 1)
        .fused.map((f) => f.id)
        .filter(has)
        .slice(0, 2),
      ['b', 'x'],
      'at full weight x would have come before c',
    );
  });

  it('fuses to exactly the lexical order when no vector exists yet, and marks the stand-ins', () => {
    const lexical = ranked('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i');
    const { fused, counts } = fuseWithMissingVectors(lexical, [], () => false, 10, defaultAperture, 0.5);
    assert.deepEqual(
      fused.map((f) => f.id),
      lexical.map((h) => h.id),
    );
    // Documents outside the lexical candidates may have vectors: with none among the candidates they still add nothing.
    const others = fuseWithMissingVectors(lexical, ranked('x', 'y'), (id) => ['x', 'y'].includes(id), 10, null, 0.5).fused;
    assert.deepEqual(
      others.map((f) => f.id),
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
