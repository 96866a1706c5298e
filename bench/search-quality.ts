// Search quality on Cranfield (1,400 docs, 225 queries, graded judgements) and CACM (3,204 records,
// 52 judged queries, binary): nDCG@10 and recall@100 of our BM25, vector-only and hybrid (RRF,
// aperture on/off) rankings, next to the lexical peers of bench/lexical-peers.ts (MiniSearch, Orama,
// wink-bm25, Lucene) measured in the same run. Every collection is reported in every run (issue #23).
// Then every search parameter cross-validated across the two collections (bench/search-tuning.ts, issue #33),
// and the goal: hybrid with all vectors ≥ 1.10× the best of Lucene BM25 and wink-bm25 on every collection.
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { embeddingText } from '../src/search/documents.js';
import { HashingEmbedder, type Embedder } from '../src/search/embedder.js';
import { defaultAperture, type ApertureOptions } from '../src/search/rrf-fusion.js';
import { MemorySearchIndex, type SearchQuery } from '../src/search/memory-index.js';
import { defaultModelDir, MiniLmEmbedder } from '../src/search/minilm.js';
import { loadCacm, loadCranfield, ndcgAt10, searchableDoc, type Cranfield, type CranQuery } from './collections.js';
import { lexicalPeers } from './lexical-peers.js';
import { cachedEmbeddings } from './embedding-cache.js';
import { recordGoal } from './goals.js';
import { crossValidate, defaults, prepare, printCrossValidation, score, type Prepared } from './search-tuning.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const depth = 100; // recall@100 needs 100 results; also the candidate pool per retriever (the API default)
const collection = 'bench';
type Ranker = (query: CranQuery) => string[] | Promise<string[]>;

function recallAt100(ranked: string[], gains: Map<string, number>): number {
  const relevant = [...gains].filter(([, g]) => g > 0).map(([id]) => id);
  if (relevant.length === 0) return 0;
  const top = new Set(ranked.slice(0, 100));
  return relevant.filter((id) => top.has(id)).length / relevant.length;
}

async function evaluate({ queries, judgements }: Cranfield, rank: Ranker): Promise<{ ndcg: number; recall: number; ms: number }> {
  let ndcg = 0;
  let recall = 0;
  const start = performance.now();
  for (const q of queries) {
    const ranked = await rank(q);
    const gains = judgements.get(q.id) ?? new Map<string, number>();
    ndcg += ndcgAt10(ranked, gains);
    recall += recallAt100(ranked, gains);
  }
  return { ndcg: ndcg / queries.length, recall: recall / queries.length, ms: performance.now() - start };
}

/** The default embedder, when its model is installed (scripts/install-model.sh); otherwise why not. */
async function miniLm(): Promise<Embedder | string> {
  try {
    return await MiniLmEmbedder.load(defaultModelDir(resolve(repoRoot, process.env.PLATFORM_DEV_DIR ?? '.dev')));
  } catch (err) {
    return err instanceof Error ? err.message.split('\n')[0]! : String(err);
  }
}

interface Row {
  name: string;
  ndcg: number;
  recall: number;
  ms: number;
  kind: 'ours' | 'peer' | 'hybrid';
  bestSingle?: number;
  note?: string;
}

/** One collection: the peers, then ours with each embedder. Returns the table's rows, its notes and MiniLM's rankings. */
async function measure(col: Cranfield, embedders: Embedder[]): Promise<{ rows: Row[]; notes: string[]; prepared?: Prepared }> {
  const { docs, queries } = col;
  const rows: Row[] = [];
  const notes: string[] = [];
  let prepared: Prepared | undefined;
  let t = performance.now();
  const { peers, unavailable } = await lexicalPeers(col, depth);
  notes.push(...unavailable, `peers indexed in ${(performance.now() - t).toFixed(0)} ms`);
  for (const peer of peers) rows.push({ name: peer.name, kind: 'peer', ...(await evaluate(col, peer.rank)) });

  let bm25: number | null = null;
  for (const embedder of embedders) {
    t = performance.now();
    const docVectors = await cachedEmbeddings(
      embedder,
      docs.map((d) => embeddingText({ title: d.title, context: {}, content: d.content })),
    );
    const queryVectors = new Map(
      (
        await cachedEmbeddings(
          embedder,
          queries.map((q) => q.text),
        )
      ).map((v, i) => [queries[i]!.id, v]),
    );
    notes.push(`${embedder.id} embed ${docs.length} docs + ${queries.length} queries ${(performance.now() - t).toFixed(0)} ms`);
    if (embedder instanceof MiniLmEmbedder) prepared = prepare(col, docVectors, [...queryVectors.values()]);

    const index = new MemorySearchIndex(embedder.dimensions);
    docs.forEach((d, i) => index.upsert(searchableDoc(d, collection, docVectors[i]!)));
    const base: Omit<SearchQuery, 'text' | 'vector' | 'aperture'> = {
      limit: depth,
      preset: 'balanced',
      candidates: depth,
      semanticWeight: embedder.fusionWeight,
      scope: { containerIds: new Set([collection]), contentTypes: null, typeLimits: null },
    };
    const queryVector = (q: CranQuery) => queryVectors.get(q.id)!;

    if (bm25 === null) {
      const r = await evaluate(col, (q) => index.search({ ...base, text: q.text, vector: null, aperture: null }).hits.map((h) => h.id));
      rows.push({ name: 'ours: BM25 only (analyzer, balanced preset)', kind: 'ours', ...r });
      bm25 = r.ndcg;
    }

    // Exact cosine in the bench (vectors are unit length, so the dot product), over all documents.
    const vectorOnly = await evaluate(col, (q) => {
      const qv = queryVector(q);
      const scored = docVectors.map((v, i) => {
        let dot = 0;
        for (let j = 0; j < v.length; j++) dot += v[j]! * qv[j]!;
        return { id: docs[i]!.id, dot };
      });
      return scored
        .sort((a, b) => b.dot - a.dot)
        .slice(0, depth)
        .map((s) => s.id);
    });
    rows.push({ name: `ours: vector only (${embedder.id})`, kind: 'ours', ...vectorOnly });

    const bestSingle = Math.max(bm25, vectorOnly.ndcg);
    for (const aperture of [{ ...defaultAperture, minScore: embedder.similarityFloor }, null] as (ApertureOptions | null)[]) {
      let kept = 0;
      const r = await evaluate(col, (q) => {
        const outcome = index.search({ ...base, text: q.text, vector: queryVector(q), aperture });
        kept += outcome.semanticKept;
        return outcome.hits.map((h) => h.id);
      });
      rows.push({
        name: `ours: hybrid RRF, aperture ${aperture ? 'on ' : 'off'} (${embedder.id})`,
        kind: 'hybrid',
        bestSingle,
        note: `semantic kept ${(kept / queries.length).toFixed(1)}/${depth}`,
        ...r,
      });
    }
  }
  return { rows, notes, ...(prepared ? { prepared } : {}) };
}

function print(col: Cranfield, rows: Row[], notes: string[]): void {
  const bestPeer = Math.max(...rows.filter((r) => r.kind === 'peer').map((r) => r.ndcg));
  const width = Math.max(...rows.map((r) => r.name.length));
  const header = `${'system'.padEnd(width)} | nDCG@10 | recall@100 | ÷ best peer | ÷ best single | ms/query | notes`;
  console.log(`\n${col.name}: ${col.docs.length} docs, ${col.queries.length} judged queries.`);
  console.log(header);
  console.log(header.replace(/[^|]/g, '-'));
  for (const r of rows) {
    const ratio = (x: number | undefined) => (r.kind !== 'peer' && x ? (r.ndcg / x).toFixed(3) : '');
    console.log(
      [
        r.name.padEnd(width),
        r.ndcg.toFixed(4).padStart(7),
        r.recall.toFixed(4).padStart(10),
        ratio(bestPeer).padStart(11),
        ratio(r.bestSingle).padStart(13),
        (r.ms / col.queries.length).toFixed(2).padStart(8),
        r.note ?? '',
      ].join(' | '),
    );
  }
  console.log(notes.join('; '));
}

async function main(): Promise<void> {
  const embedders: Embedder[] = [new HashingEmbedder(384)];
  const loaded = await miniLm();
  if (typeof loaded === 'string') console.log(`MiniLM: unavailable (${loaded})`);
  else embedders.push(loaded);
  console.log(
    'nDCG@10 at exponential gain ((2^g − 1) / log2(rank + 1); Cranfield g = 5 − code, −1 → 0; CACM binary); recall@100 over judged docs with g > 0.',
  );
  console.log('Ratios are nDCG@10 ratios; "best peer" is the best lexical library of the same run. ms/query is the whole ranking call.');
  const prepared: Prepared[] = [];
  for (const col of [loadCranfield(), loadCacm()]) {
    const { rows, notes, prepared: p } = await measure(col, embedders);
    print(col, rows, notes);
    if (typeof loaded === 'string') continue;
    recordRatio(col, rows, loaded);
    if (p) {
      // The precomputed rankings must give what the index gives (same BM25, same fusion): else the tuning measures something else.
      const viaIndex = rows.find((r) => r.name === `ours: hybrid RRF, aperture on  (${loaded.id})`)!.ndcg;
      const viaTuning = score(p, defaults(loaded.fusionWeight, loaded.similarityFloor));
      console.log(
        `check: default parameters through the index ${viaIndex.toFixed(4)}, on the precomputed rankings ${viaTuning.toFixed(4)}`,
      );
      prepared.push(p);
    }
  }
  if (typeof loaded !== 'string' && prepared.length === 2)
    printCrossValidation(
      prepared[0]!,
      prepared[1]!,
      crossValidate(prepared[0]!, prepared[1]!, defaults(loaded.fusionWeight, loaded.similarityFloor)),
    );
}

/** The goal row: hybrid with every vector (MiniLM, the API's default aperture) ÷ the better of Lucene BM25 and wink-bm25 of this run. */
function recordRatio(col: Cranfield, rows: Row[], embedder: Embedder): void {
  const hybrid = rows.find((r) => r.name === `ours: hybrid RRF, aperture on  (${embedder.id})`);
  const peers = rows.filter((r) => r.kind === 'peer' && /^(Lucene|wink-bm25)/.test(r.name));
  if (!hybrid || peers.length === 0) return void console.log(`goal row not measured on ${col.name}: no hybrid row or no Lucene/wink peer`);
  const best = peers.reduce((x, y) => (y.ndcg > x.ndcg ? y : x));
  const ratio = hybrid.ndcg / best.ndcg;
  recordGoal({
    row: 'search-quality',
    what: `hybrid nDCG@10 with all vectors, ${col.name.split(' ')[0]} (${embedder.id}, aperture on)`,
    measured: hybrid.ndcg.toFixed(4),
    baseline: `${best.name.split(' (')[0]} ${best.ndcg.toFixed(4)}${peers.length < 2 ? ' (the other peer unavailable)' : ''}`,
    ratio,
    goal: '≥ 1.10× the best of Lucene BM25 and wink-bm25',
    met: ratio >= 1.1,
  });
}

await main();
