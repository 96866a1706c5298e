import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Bm25Index } from '../../src/search/bm25.js';

const even = { title: 1, description: 1, content: 1 };
const all = () => true;

describe('BM25F index', () => {
  it('scores a single-field match by the BM25 formula', () => {
    const index = new Bm25Index();
    index.upsert('a', { title: '', description: '', content: 'wing' });
    index.upsert('b', { title: '', description: '', content: 'tail' });
    const [hit] = index.search('wing', even, 10, all);
    // N = 2, df = 1: idf = ln(1 + 1.5/1.5) = ln 2; tf' = 1 at average length: 1 · 2.2 / (1 + 1.2).
    assert.equal(hit!.id, 'a');
    assert.ok(Math.abs(hit!.score - Math.log(2)) < 1e-6);
  });

  it('stems, drops stopwords and weights fields at query time', () => {
    const index = new Bm25Index();
    index.upsert('title', { title: 'Flutter of wings', description: '', content: 'notes' });
    index.upsert('content', { title: 'Notes', description: '', content: 'the wings were fluttering' });
    assert.equal(index.search('fluttering wing', { title: 3, description: 1, content: 0.5 }, 10, all)[0]!.id, 'title');
    assert.equal(index.search('fluttering wing', { title: 0.5, description: 1, content: 3 }, 10, all)[0]!.id, 'content');
    assert.deepEqual(index.search('the of were', even, 10, all), []);
  });

  it('keeps the top k that the filter accepts', () => {
    const index = new Bm25Index();
    for (let i = 0; i < 50; i++) index.upsert(`d${i}`, { title: '', description: '', content: `shock ${'wave '.repeat(i % 5)}` });
    const hits = index.search('shock wave', even, 5, (id) => id !== 'd4');
    assert.equal(hits.length, 5);
    assert.ok(!hits.some((h) => h.id === 'd4'));
    for (let i = 1; i < hits.length; i++) assert.ok(hits[i - 1]!.score >= hits[i]!.score);
  });

  it('follows updates and removals, through compaction', () => {
    const index = new Bm25Index();
    for (let i = 0; i < 3000; i++) index.upsert(`d${i}`, { title: `doc ${i}`, description: '', content: 'plasma' });
    for (let i = 0; i < 2000; i++) index.remove(`d${i}`); // past the compaction threshold
    index.upsert('d2500', { title: 'changed', description: '', content: 'magnetohydrodynamics' });
    assert.equal(index.size, 1000);
    assert.equal(index.search('plasma', even, 5000, all).length, 999);
    assert.deepEqual(
      index.search('magnetohydrodynamics', even, 10, all).map((h) => h.id),
      ['d2500'],
    );
    assert.deepEqual(
      index.search('doc 10', even, 10, all).filter((h) => h.id === 'd10'),
      [],
    );
  });
});
