// Hybrid search while indexing lags (issue #23): only a fraction p of the documents have their
// vector yet. nDCG@10 of lexical-only, of hybrid as it was (a document without a vector gets no
// semantic contribution, so it falls below vectored ones) and of hybrid now (missing-vectors.ts: it
// ranks semantically at its lexical rank), at p = 0, 0.25, 0.5, 0.75, 1, on Cranfield and CACM. Which
// documents have vectors is drawn at random (3 seeds, averaged; min–max shown). Vectors come from the
// bench cache (bench/embedding-cache.ts): the first run embeds, later ones read them.
import { embeddingText } from '../src/search/documents.js';
import { HashingEmbedder, type Embedder } from '../src/search/embedder.js';
import { MemorySearchIndex, type SearchQuery } from '../src/search/memory-index.js';
import { defaultModelDir, MiniLmEmbedder } from '../src/search/minilm.js';
import { defaultAperture, fuseRetrievers, type ApertureOptions, type Ranked } from '../src/search/rrf-fusion.js';
import { loadCacm, loadCranfield, type Cranfield } from './collections.js';
import { cachedEmbeddings, devDir } from './embedding-cache.js';
import { recordGoal } from './goals.js';

const depth = 100;
const fractions = [0, 0.25, 0.5, 0.75, 1];
const seeds = [1, 2, 3];

function ndcgAt10(ranked: string[], gains: Map<string, number>): number {
  const dcg = (gs: number[]) => gs.slice(0, 10).reduce((sum, g, i) => sum + (2 ** g - 1) / Math.log2(i + 2), 0);
  const ideal = dcg([...gains.values()].sort((a, b) => b - a));
  return ideal === 0 ? 0 : dcg(ranked.map((id) => gains.get(id) ?? 0)) / ideal;
}

/** A seeded shuffle (mulberry32): the same subsets in every run. */
function shuffled<T>(items: T[], seed: number): T[] {
  let a = seed;
  const random = () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** The lowest hybrid ÷ lexical-only nDCG@10 of one draw, and where. */
interface Worst {
  ratio: number;
  where: string;
}

async function measure(col: Cranfield, embedder: Embedder, aperture: ApertureOptions | null): Promise<Worst> {
  let worst: Worst = { ratio: Infinity, where: '' };
  const docVectors = await cachedEmbeddings(
    embedder,
    col.docs.map((d) => embeddingText({ title: d.title, context: {}, content: d.content })),
  );
  const queryVectors = await cachedEmbeddings(
    embedder,
    col.queries.map((q) => q.text),
  );
  const scope = { containerIds: new Set(['bench']), contentTypes: null, typeLimits: null };
  console.log(`\n${col.name}, ${embedder.id}, aperture ${aperture ? 'on' : 'off'}: nDCG@10 (mean of ${seeds.length} draws, min–max)`);
  console.log('   p     lexical   hybrid before (ratio)          hybrid now (ratio)');
  for (const p of fractions) {
    const rows = { lexical: [] as number[], before: [] as number[], now: [] as number[] };
    for (const seed of p === 0 || p === 1 ? [seeds[0]!] : seeds) {
      const vectored = new Set(
        shuffled(col.docs, seed)
          .slice(0, Math.round(p * col.docs.length))
          .map((d) => d.id),
      );
      const index = new MemorySearchIndex(embedder.dimensions);
      col.docs.forEach((d, i) =>
        index.upsert({
          id: d.id,
          title: d.title,
          description: '',
          content: d.content,
          content_type: 'text/plain',
          collection_id: 'bench',
          container_kind: 'collection',
          revision: 1,
          ...(vectored.has(d.id) ? { vector: docVectors[i]! } : {}),
        }),
      );
      const base: Omit<SearchQuery, 'text' | 'vector'> = {
        limit: depth,
        preset: 'balanced',
        candidates: depth,
        aperture,
        semanticWeight: embedder.fusionWeight,
        scope,
      };
      const sums = { lexical: 0, before: 0, now: 0 };
      col.queries.forEach((q, qi) => {
        const gains = col.judgements.get(q.id) ?? new Map<string, number>();
        const lexicalHits = index.search({ ...base, text: q.text, vector: null }).hits;
        sums.lexical += ndcgAt10(
          lexicalHits.map((h) => h.id),
          gains,
        );
        // Before: fusion over the lexical list and the kNN of the vectored documents only.
        const lexical: Ranked[] = lexicalHits.map((h) => ({ id: h.id, score: h.retrievers.lexical!.score }));
        const qv = queryVectors[qi]!;
        const semantic = col.docs
          .map((d, i) => ({ id: d.id, score: vectored.has(d.id) ? dot(docVectors[i]!, qv) : -Infinity }))
          .filter((h) => h.score > -Infinity)
          .sort((a, b) => b.score - a.score)
          .slice(0, depth);
        const before = fuseRetrievers(lexical, semantic, depth, aperture, embedder.fusionWeight).fused;
        sums.before += ndcgAt10(
          before.map((f) => f.id),
          gains,
        );
        sums.now += ndcgAt10(
          index.search({ ...base, text: q.text, vector: qv }).hits.map((h) => h.id),
          gains,
        );
      });
      rows.lexical.push(sums.lexical / col.queries.length);
      rows.before.push(sums.before / col.queries.length);
      rows.now.push(sums.now / col.queries.length);
    }
    rows.now.forEach((x, i) => {
      const ratio = x / rows.lexical[i]!;
      if (ratio < worst.ratio) worst = { ratio, where: `${col.name}, ${Math.round(p * 100)}% of vectors, draw ${i + 1}` };
    });
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const cell = (xs: number[]) =>
      `${mean(xs).toFixed(4)} (×${(mean(xs) / mean(rows.lexical)).toFixed(3)}${xs.length > 1 ? `, ${Math.min(...xs).toFixed(3)}–${Math.max(...xs).toFixed(3)}` : ''})`;
    console.log(`  ${p.toFixed(2)}  ${mean(rows.lexical).toFixed(4)}   ${cell(rows.before).padEnd(30)} ${cell(rows.now)}`);
  }
  return worst;
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let j = 0; j < a.length; j++) s += a[j]! * b[j]!;
  return s;
}

async function main(): Promise<void> {
  const embedders: Embedder[] = [];
  try {
    embedders.push(await MiniLmEmbedder.load(defaultModelDir(devDir)));
  } catch (err) {
    console.log(`MiniLM not measured: ${(err as Error).message.split('\n')[0]}`);
  }
  embedders.push(new HashingEmbedder());
  // Per embedder and aperture setting: the worst draw over every fraction, seed and collection.
  const worst = new Map<string, Worst>();
  for (const col of [loadCranfield(), loadCacm()])
    for (const embedder of embedders)
      for (const aperture of [{ ...defaultAperture, minScore: embedder.similarityFloor }, null]) {
        const w = await measure(col, embedder, aperture);
        const key = `${embedder.id}|${aperture ? 'on' : 'off'}`;
        if (w.ratio < (worst.get(key)?.ratio ?? Infinity)) worst.set(key, w);
      }
  console.log('\nworst draw, hybrid ÷ lexical-only nDCG@10, over every fraction, draw and collection:');
  for (const [key, w] of worst) console.log(`  ${key.replace('|', ', aperture ')}: ×${w.ratio.toFixed(3)} (${w.where})`);
  // The row: the API's default (aperture on) with the model we ship; the hashing fallback apart.
  for (const embedder of embedders) {
    const w = worst.get(`${embedder.id}|on`)!;
    recordGoal({
      row: 'search-lag',
      what: `hybrid ÷ lexical-only nDCG@10 while vectors lag, worst draw over 0–100% of vectors, 3 draws, Cranfield and CACM (${embedder.id}, aperture on${embedder instanceof MiniLmEmbedder ? '' : ': the fallback without the model'})`,
      measured: `×${w.ratio.toFixed(3)} (${w.where})`,
      goal: 'never below lexical-only (≥ 1.00)',
      met: w.ratio >= 1,
    });
  }
}

await main();
