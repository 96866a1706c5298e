// Search cost follows the caller's scope, not the store (issue #31): a search within a few containers
// reads only their documents and vectors, and answers exactly what a search of the whole index
// filtered to that scope answers.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Bm25Index } from '../../src/search/bm25.js';
import { MemorySearchIndex, type SearchableDoc, type SearchQuery } from '../../src/search/memory-index.js';
import { fuseWithMissingVectors } from '../../src/search/missing-vectors.js';
import { boostPresets } from '../../src/search/presets.js';
import { AnnScheduler } from '../../src/search/ann-builds.js';
import { ScopedVectorIndex } from '../../src/search/scoped-vectors.js';
import { ExactVectorIndex } from '../../src/search/vectors.js';

const dims = 16;
const words = ['wing', 'flutter', 'shock', 'wave', 'boundary', 'layer', 'plasma', 'nozzle', 'heat', 'transfer', 'laminar', 'vortex'];

function rand(seed: number): () => number {
  return () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

function unit(next: () => number): Float32Array {
  const v = Float32Array.from({ length: dims }, () => next() - 0.5);
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
}

const text = (next: () => number, n: number) => Array.from({ length: n }, () => words[Math.floor(next() * words.length)]).join(' ');

/** `big` documents in container `c0`, then 10 in each of `small` more containers. */
function docs(big: number, small: number, seed = 1): SearchableDoc[] {
  const next = rand(seed);
  const container = (i: number) => (i < big ? 'c0' : `c${1 + Math.floor((i - big) / 10)}`);
  return Array.from({ length: big + small * 10 }, (_, i) => ({
    id: `d${i}`,
    title: text(next, 3),
    description: '',
    content: text(next, 20),
    content_type: i % 7 === 0 ? 'application/json' : 'text/markdown',
    collection_id: container(i),
    container_kind: 'workspace' as const,
    revision: 1,
    vector: unit(next),
  }));
}

function query(text: string, vector: Float32Array | null, containers: string[], typeLimits: string[] | null = null): SearchQuery {
  return {
    text,
    vector,
    limit: 20,
    preset: 'balanced',
    candidates: 50,
    aperture: null,
    semanticWeight: 1,
    scope: { containerIds: new Set(containers), contentTypes: null, typeLimits },
  };
}

describe('BM25 within a scope', () => {
  const index = new Bm25Index();
  const all = docs(3000, 40);
  for (const d of all) index.upsert(d.id, { title: d.title, description: d.description, content: d.content }, d.collection_id);
  const inC3 = all.filter((d) => d.collection_id === 'c3').map((d) => d.id);
  const even = { title: 2, description: 1, content: 1 };

  it('scores a small scope document by document, with the same scores as the postings walk', () => {
    for (const q of ['wing flutter', 'shock wave boundary layer', 'plasma', 'heat vortex nozzle']) {
      const accept = (id: string) => inC3.includes(id);
      const walked = index.search(q, even, 5, accept);
      const walkCost = index.lastSearchCost;
      const forward = index.search(q, even, 5, accept, { containers: new Set(['c3']), ids: inC3, size: inC3.length, accept: null });
      assert.equal(index.lastSearchCost, inC3.length, 'only the scope was read');
      assert.ok(walkCost > 1000, `the postings walk reads the whole index (${walkCost})`);
      assert.deepEqual(
        forward.map((h) => h.score),
        walked.map((h) => h.score),
      );
      assert.deepEqual(new Set(forward.map((h) => h.id)), new Set(walked.map((h) => h.id)));
    }
  });

  it('walks the postings when the scope is most of the index, skipping other containers at once', () => {
    const scope = ['c0', 'c1', 'c2'];
    const ids = all.filter((d) => scope.includes(d.collection_id)).map((d) => d.id);
    for (const q of ['wing', 'shock wave boundary layer', 'heat vortex nozzle']) {
      const accept = (id: string) => ids.includes(id);
      const walked = index.search(q, even, 10, accept);
      const walkCost = index.lastSearchCost;
      const scoped = index.search(q, even, 10, () => false, { containers: new Set(scope), ids, size: ids.length, accept: null });
      assert.equal(index.lastSearchCost, walkCost, 'the postings, not the scope one by one');
      assert.deepEqual(
        scoped.map((h) => h.score),
        walked.map((h) => h.score),
      );
      assert.ok(scoped.every((h) => accept(h.id)));
    }
  });

  it('follows updates and removals in the forward index, through compaction', () => {
    const small = new Bm25Index();
    for (let i = 0; i < 2000; i++) small.upsert(`x${i}`, { title: '', description: '', content: i % 2 ? 'wing' : 'flutter' });
    for (let i = 0; i < 1500; i++) small.remove(`x${i}`); // compacts
    small.upsert('x1999', { title: 'vortex', description: '', content: 'vortex' });
    const ids = ['x1998', 'x1999', 'x1500', 'gone'];
    const scope = { containers: new Set(['']), ids, size: ids.length, accept: null };
    assert.deepEqual(
      small.search('vortex', even, 5, () => true, scope).map((h) => h.id),
      ['x1999'],
    );
    assert.deepEqual(
      small
        .search('flutter wing', even, 5, () => true, scope)
        .map((h) => h.id)
        .sort(),
      ['x1500', 'x1998'],
    );
  });
});

describe('vectors by container', () => {
  it('answers a scope from its containers alone, exactly, past the HNSW thresholds', () => {
    const builds = new AnnScheduler();
    const index = new ScopedVectorIndex(dims, 500, builds);
    const exact = new ExactVectorIndex(dims);
    const all = docs(2000, 100, 2);
    for (const d of all) {
      index.upsert(d.id, d.collection_id, d.vector!);
      exact.upsert(d.id, d.vector!);
    }
    builds.drain();
    assert.ok(index.approximate);
    const next = rand(9);
    for (const containers of [['c5'], ['c1', 'c2', 'c99']]) {
      const accept = (id: string) => containers.includes(all[Number(id.slice(1))]!.collection_id);
      const q = unit(next);
      assert.deepEqual(index.search(q, 10, new Set(containers), accept), exact.search(q, 10, accept));
      assert.equal(index.lastSearchCost, containers.length * 10, 'only the scope was read');
    }
    // The large container (its own HNSW index): the approximate neighbours, never a scan of the store.
    let agree = 0;
    for (let i = 0; i < 20; i++) {
      const q = unit(next);
      const inC0 = (id: string) => Number(id.slice(1)) < 2000;
      const truth = new Set(exact.search(q, 10, inC0).map((h) => h.id));
      agree += index.search(q, 10, new Set(['c0']), null).filter((h) => truth.has(h.id)).length;
      assert.ok(index.lastSearchCost <= 2000);
    }
    assert.ok(agree / 200 > 0.85, `recall@10 ${agree / 200}`);
    // Everything: the large container's HNSW index and the small containers' shared one.
    index.search(unit(next), 10, new Set(['c0', ...Array.from({ length: 100 }, (_, i) => `c${i + 1}`)]), null);
    assert.equal(
      index.lastSearchCost,
      2 * (10 * 4 + 50),
      "two indexes' approximate neighbours: the large container's and the small ones' shared one",
    );
  });

  it('hands a container that grows past the threshold its own HNSW index, no vector in two', () => {
    const builds = new AnnScheduler();
    const index = new ScopedVectorIndex(dims, 200, builds);
    const exact = new ExactVectorIndex(dims);
    const next = rand(21);
    const add = (id: string, container: string) => {
      const v = unit(next);
      index.upsert(id, container, v);
      exact.upsert(id, v);
    };
    for (let i = 0; i < 500; i++) add(`s${i}`, `c${i % 50}`); // ten each: the shared index, built at 200
    builds.drain();
    assert.ok(index.approximate);
    for (let i = 0; i < 300; i++) add(`b${i}`, 'big'); // its own index from 200 on
    builds.drain();
    const every = new Set(['big', ...Array.from({ length: 50 }, (_, i) => `c${i}`)]);
    let agree = 0;
    for (let q = 0; q < 20; q++) {
      const query = unit(next);
      const hits = index.search(query, 50, every, null);
      assert.equal(new Set(hits.map((h) => h.id)).size, hits.length, 'no vector answered twice');
      const truth = new Set(exact.search(query, 50, null).map((h) => h.id));
      agree += hits.filter((h) => truth.has(h.id)).length;
    }
    assert.ok(agree / 1000 > 0.85, `recall@50 ${agree / 1000}`);
  });

  it('builds HNSW on a thread of its own, answering exactly meanwhile, and keeps the writes made during it', async () => {
    const builds = new AnnScheduler();
    const index = new ScopedVectorIndex(dims, 300, builds);
    const exact = new ExactVectorIndex(dims);
    const next = rand(33);
    const vectors = new Map<string, Float32Array>();
    const put = (id: string, container: string) => {
      const v = unit(next);
      vectors.set(id, v);
      index.upsert(id, container, v);
      exact.upsert(id, v);
    };
    index.beginBulk();
    for (let i = 0; i < 1500; i++) put(`v${i}`, i < 1000 ? 'big' : `c${i % 20}`);
    index.endBulk();
    assert.ok(!index.approximate && !builds.idle, 'scheduled, not built at once');
    const everything = new Set(['big', ...Array.from({ length: 20 }, (_, i) => `c${i}`)]);
    const q = unit(next);
    assert.deepEqual(index.search(q, 10, everything, null), exact.search(q, 10, null), 'exact while building');
    // Writes while it builds: new vectors, new versions of pending and of added ones, removals.
    let turns = 0;
    const ticking = setInterval(() => turns++, 0);
    await new Promise((resolve) => setImmediate(resolve));
    for (let i = 0; i < 100; i++) put(`v${i * 7}`, i * 7 < 1000 ? 'big' : `c${(i * 7) % 20}`);
    for (let i = 0; i < 50; i++) {
      index.remove(`v${i * 13 + 1}`);
      exact.remove(`v${i * 13 + 1}`);
    }
    for (let i = 0; i < 40; i++) put(`n${i}`, i % 2 ? 'big' : 'c3');
    assert.equal(await builds.whenIdle(), true);
    clearInterval(ticking);
    assert.ok(turns >= 3, `the event loop turned ${turns} times during the build`);
    assert.ok(index.approximate);
    let agree = 0;
    for (let t = 0; t < 20; t++) {
      const query = unit(next);
      const hits = index.search(query, 20, everything, null);
      assert.ok(
        hits.every((h) => exact.has(h.id)),
        'nothing removed comes back',
      );
      const truth = new Set(exact.search(query, 20, null).map((h) => h.id));
      agree += hits.filter((h) => truth.has(h.id)).length;
    }
    assert.ok(agree / 400 > 0.85, `recall@20 ${agree / 400}`);
    // A rewritten vector is found by its new value: its nearest neighbour is itself.
    const rewritten = vectors.get('v7')!;
    assert.equal(index.search(rewritten, 1, new Set(['big']), null)[0]!.id, 'v7');
    builds.stop();
    assert.equal(await builds.whenIdle(), false);
  });

  it('builds on this thread when a build thread fails, and says so', async () => {
    const errors: Error[] = [];
    const builds = new AnnScheduler((err) => errors.push(err), "throw new Error('no thread for you')");
    const index = new ScopedVectorIndex(dims, 100, builds);
    const exact = new ExactVectorIndex(dims);
    const next = rand(44);
    for (let i = 0; i < 400; i++) {
      const v = unit(next);
      index.upsert(`v${i}`, 'big', v);
      exact.upsert(`v${i}`, v);
    }
    assert.equal(await builds.whenIdle(), true);
    assert.match(errors[0]?.message ?? '', /no thread for you/);
    const q = unit(next);
    const truth = new Set(exact.search(q, 10, null).map((h) => h.id));
    assert.ok(index.search(q, 10, new Set(['big']), null).filter((h) => truth.has(h.id)).length >= 8);
    assert.equal(index.lastSearchCost, 10 * 4 + 50, 'answered by the HNSW index');
  });

  it('moves a vector with its artifact and forgets emptied containers', () => {
    const index = new ScopedVectorIndex(dims, 500);
    const next = rand(3);
    const v = unit(next);
    index.upsert('a', 'c1', v);
    index.upsert('b', 'c1', unit(next));
    index.upsert('a', 'c2', v);
    assert.equal(index.sizeOf('c1'), 1);
    assert.deepEqual(
      index.search(v, 5, new Set(['c1']), null).map((h) => h.id),
      ['b'],
    );
    assert.equal(index.search(v, 5, new Set(['c2']), null)[0]!.id, 'a');
    index.remove('a');
    assert.equal(index.sizeOf('c2'), 0);
    assert.deepEqual(index.search(v, 5, new Set(['c2']), null), []);
    assert.equal(index.size, 1);
  });
});

describe('hybrid search within a scope', () => {
  it("reads the caller's containers only, and answers as the filtered whole index does", () => {
    const scoped = new MemorySearchIndex(dims, 500);
    const reference = new Bm25Index();
    const exact = new ExactVectorIndex(dims);
    const all = docs(3000, 200, 4);
    for (const d of all) {
      scoped.upsert(d);
      reference.upsert(d.id, { title: d.title, description: d.description, content: d.content });
      exact.upsert(d.id, d.vector!);
    }
    scoped.finishBuilds();
    const next = rand(11);
    for (const [containers, typeLimits] of [
      [['c7'], null],
      [['c7', 'c8', 'c150'], ['text/*']],
    ] as const) {
      const q = query('shock wave layer', unit(next), [...containers], typeLimits ? [...typeLimits] : null);
      const hits = scoped.search(q);
      const cost = scoped.lastSearchCost;
      assert.ok(cost.lexical <= containers.length * 10 && cost.semantic <= containers.length * 10, JSON.stringify(cost));
      // The reference: the whole index's lexical walk and an exact vector scan, both filtered to the scope, fused.
      const accept = (id: string) => {
        const d = all[Number(id.slice(1))]!;
        return containers.includes(d.collection_id as never) && (!typeLimits || d.content_type === 'text/markdown');
      };
      const lexical = reference.search(q.text, boostPresets.balanced, q.candidates, accept);
      const semantic = exact.search(q.vector!, q.candidates, accept);
      const expected = fuseWithMissingVectors(lexical, semantic, () => true, q.limit, null, 1).fused;
      assert.ok(hits.hits.length > 0);
      assert.deepEqual(
        hits.hits.map((h) => h.score),
        expected.map((h) => h.score),
      );
      assert.deepEqual(new Set(hits.hits.map((h) => h.id)), new Set(expected.map((h) => h.id)));
      assert.ok(hits.hits.every((h) => containers.includes(h.doc.collection_id as never)));
      if (typeLimits) assert.ok(hits.hits.every((h) => h.doc.content_type === 'text/markdown'));
    }
  });

  it('finds an artifact moved to another container there, and only there', () => {
    const index = new MemorySearchIndex(dims);
    const [a] = docs(1, 0, 5);
    index.upsert(a!);
    index.upsert({ ...a!, collection_id: 'elsewhere', revision: 2 });
    const v = a!.vector!;
    assert.deepEqual(index.search(query(a!.title, v, ['c0'])).hits, []);
    assert.deepEqual(
      index.search(query(a!.title, v, ['elsewhere'])).hits.map((h) => h.id),
      [a!.id],
    );
    index.remove(a!.id);
    assert.deepEqual(index.search(query(a!.title, v, ['elsewhere'])).hits, []);
  });
});
