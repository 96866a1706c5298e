// MemorySearchIndex cost at 1k, 10k and 100k synthetic artifacts: build time, memory, and hybrid
// query latency (p50/p95 over 200 queries). Text is drawn deterministically (seeded PRNG, Zipf over
// the Cranfield vocabulary); vectors are random unit vectors of dimension 384, since embedding cost
// is not what is measured. Run with --expose-gc for meaningful memory figures.
// BENCH_SIZES=1000,10000 overrides the sizes.
import { processTerm } from '../src/search/analyzer.js';
import { defaultAperture } from '../src/search/rrf-fusion.js';
import { MemorySearchIndex, type SearchQuery } from '../src/search/memory-index.js';
import { loadCranfield } from './collections.js';
import { rng } from './seed/text.js';

const dimensions = 384;
const sizes = (process.env.BENCH_SIZES ?? '1000,10000,100000').split(',').map(Number);
const queryCount = 200;
const warmup = 20;
const targetP95Ms = 15;
const collection = 'bench';

/** Samples words with probability ∝ 1 / rank (Zipf, s = 1); `words` sorted by descending frequency. */
function zipf(words: string[], random: () => number): () => string {
  const cumulative = new Float64Array(words.length);
  let sum = 0;
  words.forEach((_, r) => (cumulative[r] = sum += 1 / (r + 1)));
  return () => {
    const x = random() * sum;
    let lo = 0;
    let hi = words.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cumulative[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return words[lo]!;
  };
}

/**
 * Embeddings cluster by topic; uniformly random directions are an HNSW worst case no embedder makes.
 * So vectors are drawn around a fixed set of topic centres (Gaussian noise, then normalised).
 */
const topicCount = 500;
let topics: Float32Array[] | null = null;

function embeddingLike(random: () => number): Float32Array {
  topics ??= Array.from({ length: topicCount }, () => unitVector(random));
  const centre = topics[Math.floor(random() * topicCount)]!;
  const noise = unitVector(random);
  const v = new Float32Array(dimensions);
  let norm = 0;
  for (let i = 0; i < dimensions; i++) {
    v[i] = centre[i]! + 0.9 * noise[i]!;
    norm += v[i]! ** 2;
  }
  norm = Math.sqrt(norm);
  for (let i = 0; i < dimensions; i++) v[i]! /= norm;
  return v;
}

function unitVector(random: () => number): Float32Array {
  const v = new Float32Array(dimensions);
  let norm = 0;
  for (let i = 0; i < dimensions; i += 2) {
    // Box–Muller: Gaussian components give directions uniform on the sphere.
    const r = Math.sqrt(-2 * Math.log(1 - random()));
    const theta = 2 * Math.PI * random();
    v[i] = r * Math.cos(theta);
    v[i + 1] = r * Math.sin(theta);
    norm += v[i]! ** 2 + v[i + 1]! ** 2;
  }
  norm = Math.sqrt(norm);
  for (let i = 0; i < dimensions; i++) v[i]! /= norm;
  return v;
}

function vocabulary(): { all: string[]; content: string[] } {
  const counts = new Map<string, number>();
  for (const d of loadCranfield().docs)
    for (const w of `${d.title} ${d.content}`.toLowerCase().match(/[a-z]+/g) ?? []) counts.set(w, (counts.get(w) ?? 0) + 1);
  const all = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([w]) => w);
  return { all, content: all.filter((w) => processTerm(w) !== null) }; // queries use words the analyzer keeps
}

/** After gc; the pause lets V8 release freed ArrayBuffer backing stores, which happens off the main thread. */
async function memory(): Promise<{ heap: number; buffers: number }> {
  for (let i = 0; i < 2; i++) {
    globalThis.gc?.();
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const m = process.memoryUsage();
  return { heap: m.heapUsed, buffers: m.arrayBuffers };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

interface Result {
  size: number;
  buildMs: number;
  heapMb: number;
  buffersMb: number;
  hybrid: { p50: number; p95: number };
  lexical: { p50: number; p95: number };
  /** kNN recall@100 of the index against an exact scan (1 while the scan is exact). */
  recall: number;
}

/** Synthetic artifacts; `containerOf` places each one (default: all in one collection). */
function artifacts(size: number, word: () => string, random: () => number, containerOf: (i: number) => string = () => collection) {
  return Array.from({ length: size }, (_, i) => {
    const length = 50 + Math.floor(random() * 101);
    const words = Array.from({ length }, word);
    const titleLength = 3 + Math.floor(random() * 6);
    return {
      id: `a${i}`,
      title: words.slice(0, titleLength).join(' '),
      description: '',
      content: words.slice(titleLength).join(' '),
      content_type: 'text/markdown',
      collection_id: containerOf(i),
      container_kind: 'collection' as const,
      revision: 1,
      vector: embeddingLike(random),
    };
  });
}

type Query = { text: string; vector: Float32Array };

function queriesFor(size: number, vocab: { content: string[] }, random: () => number): Query[] {
  const queryWord = zipf(vocab.content, rng(size + 1));
  return Array.from({ length: warmup + queryCount }, () => ({
    text: Array.from({ length: 2 + Math.floor(random() * 3) }, queryWord).join(' '),
    vector: embeddingLike(random),
  }));
}

/** p50 and p95 of searching every query within `containers`, hybrid or (no vector) lexical only. */
function timed(index: MemorySearchIndex, queries: Query[], containers: string[], withVector: boolean): { p50: number; p95: number } {
  const base: Omit<SearchQuery, 'text' | 'vector'> = {
    limit: 10,
    preset: 'balanced',
    candidates: 100,
    aperture: defaultAperture,
    semanticWeight: 1,
    scope: { containerIds: new Set(containers), contentTypes: null, typeLimits: null },
  };
  const times = queries.map((q) => {
    const t = performance.now();
    index.search({ ...base, text: q.text, vector: withVector ? q.vector : null });
    return performance.now() - t;
  });
  const sorted = times.slice(warmup).sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p95: percentile(sorted, 95) };
}

async function measure(size: number, vocab: { all: string[]; content: string[] }): Promise<Result> {
  const random = rng(size);
  const before = await memory();
  let index: MemorySearchIndex | null = new MemorySearchIndex(dimensions);
  const docs = artifacts(size, zipf(vocab.all, random), random);
  // Timed: the load as a rebuild at start does it, the HNSW part (past its threshold) built at the end.
  const t = performance.now();
  await index.bulkLoad(() => docs.forEach((doc) => index!.upsert(doc)));
  index.finishBuilds(); // at start they follow in the background; here the whole build is timed
  const buildMs = performance.now() - t;
  docs.length = 0;
  const after = await memory();
  const queries = queriesFor(size, vocab, random);
  const hybrid = timed(index, queries, [collection], true);
  const lexical = timed(index, queries, [collection], false);
  const recall = index.vectorRecall(
    queries.slice(0, 30).map((q) => q.vector),
    100,
  );
  index = null; // let the next size start from a clean heap
  return {
    size,
    buildMs,
    heapMb: (after.heap - before.heap) / 2 ** 20,
    buffersMb: (after.buffers - before.buffers) / 2 ** 20,
    hybrid,
    lexical,
    recall,
  };
}

/**
 * Issue #31's shape: `size` artifacts in 1,000 containers, one of them holding a fifth, searched by
 * callers who may see only part of it: one ordinary container (0.08 %), the large one with a
 * fiftieth of the others (the bench administrator's 21 %), and everything. Each against one
 * container of 1,000 artifacts alone in its index, the "empty platform".
 */
async function measureScoped(size: number, vocab: { all: string[]; content: string[] }, empty: Result): Promise<void> {
  const random = rng(size + 7);
  const large = Math.round(size / 5);
  const containerOf = (i: number) => (i < large ? 'c0' : `c${1 + (i % 999)}`);
  const index = new MemorySearchIndex(dimensions);
  const docs = artifacts(size, zipf(vocab.all, random), random, containerOf);
  await index.bulkLoad(() => docs.forEach((doc) => index.upsert(doc)));
  index.finishBuilds();
  docs.length = 0;
  const queries = queriesFor(size, vocab, random);
  const all = Array.from({ length: 1000 }, (_, i) => `c${i}`);
  const scopes: [string, string[]][] = [
    ['one ordinary container', ['c1']],
    ['the large one + 1/50 of the others', all.filter((_, i) => i % 50 === 0)],
    ['every container', all],
  ];
  console.log(`
Scoped: ${size} artifacts in 1,000 containers (one holds ${large}), against 1,000 artifacts in one container.`);
  console.log('              scope                  | hybrid p50 | hybrid p95 | BM25 p50 | hybrid p50 × the 1,000-artifact index');
  for (const [name, containers] of scopes) {
    const hybrid = timed(index, queries, containers, true);
    const lexical = timed(index, queries, containers, false);
    console.log(
      [
        name.padEnd(38),
        hybrid.p50.toFixed(2).padStart(10),
        hybrid.p95.toFixed(2).padStart(10),
        lexical.p50.toFixed(2).padStart(8),
        `×${(hybrid.p50 / empty.hybrid.p50).toFixed(2)}`.padStart(8),
      ].join(' | '),
    );
  }
}

async function main(): Promise<void> {
  if (!globalThis.gc) console.log('(no --expose-gc: memory figures include garbage)');
  const vocab = vocabulary();
  const results: Result[] = [];
  for (const size of sizes) {
    const t = performance.now();
    results.push(await measure(size, vocab));
    console.log(`[bench] ${size} artifacts measured in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  }

  const first = results[0]!;
  const ms = (x: number) => x.toFixed(2).padStart(7);
  const ratio = (x: number, y: number) => `×${(x / y).toFixed(1)}`.padStart(7);
  console.log(`\nMemorySearchIndex, ${dimensions}-d vectors, vocabulary ${vocab.all.length} words (Zipf), 50–150 words per artifact.`);
  console.log(
    `Hybrid = BM25 + exact kNN + RRF, limit 10, candidates 100, aperture on; ${queryCount} queries of 2–4 words after ${warmup} warm-up.`,
  );
  console.log(
    'Memory = heapUsed + arrayBuffers retained by the index after gc (arrayBuffers shown separately). Growth is relative to the first size.\n',
  );
  const header =
    '  artifacts |  build ms | memory MB | (buffers MB) | hybrid p50 | hybrid p95 | BM25 p50 | BM25 p95 | build× | memory× | p95× | kNN recall@100';
  console.log(header);
  console.log(header.replace(/[^|]/g, '-'));
  for (const r of results) {
    const memoryMb = r.heapMb + r.buffersMb;
    console.log(
      [
        String(r.size).padStart(11),
        r.buildMs.toFixed(0).padStart(9),
        memoryMb.toFixed(1).padStart(9),
        r.buffersMb.toFixed(1).padStart(12),
        ms(r.hybrid.p50).padStart(10),
        ms(r.hybrid.p95).padStart(10),
        ms(r.lexical.p50).padStart(8),
        ms(r.lexical.p95).padStart(8),
        ratio(r.buildMs, first.buildMs).padStart(6),
        ratio(memoryMb, first.heapMb + first.buffersMb),
        ratio(r.hybrid.p95, first.hybrid.p95).padStart(5),
        r.recall.toFixed(3).padStart(14),
      ].join(' | '),
    );
  }
  const largest = results.at(-1)!;
  const verdict = largest.hybrid.p95 <= targetP95Ms ? 'met' : 'NOT met';
  console.log(`\nGoal: hybrid p95 ≤ ${targetP95Ms} ms at ${largest.size} artifacts: ${verdict} (${largest.hybrid.p95.toFixed(2)} ms).`);
  const empty = results.find((r) => r.size === 1000);
  if (empty && largest.size >= 10_000) await measureScoped(largest.size, vocab, empty);
}

await main();
