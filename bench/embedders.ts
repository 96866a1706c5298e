// The static embedder (src/search/static-embedder.ts, distilled from MiniLM by scripts/distill-static.ts)
// against MiniLM on Cranfield and CACM (issue #33): nDCG@10 of each alone, of lexical alone, of hybrid
// lexical + each (RRF weight chosen by cross-validation: tuned on one collection, reported on the
// other), of lexical + static + MiniLM, and each embedder's documents/s on one core, same run.
//
//   node --import tsx bench/embedders.ts
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { embeddingText } from '../src/search/documents.js';
import type { Embedder } from '../src/search/embedding.js';
import { MemorySearchIndex } from '../src/search/memory-index.js';
import { defaultModelDir, MiniLmEmbedder } from '../src/search/minilm.js';
import { defaultAperture, elbowCut, reciprocalRankFusion, rrfK, type Ranked } from '../src/search/rrf-fusion.js';
import { StaticEmbedder } from '../src/search/static-embedder.js';
import { loadCacm, loadCranfield, ndcgAt10, searchableDoc, type Cranfield } from './collections.js';
import { cachedEmbeddings, devDir } from './embedding-cache.js';

const depth = 100;
export const weightGrid = [0.25, 0.5, 0.75, 1, 1.25, 1.5];
/** Static cosines run high (unrelated documents' median 0.3–0.4): floors up to where relevant ones sit. */
export const floorGrid = [0.2, 0.3, 0.4, 0.5, 0.6];

export const meanNdcg = (col: Cranfield, ranked: string[][]) =>
  ranked.reduce((s, r, i) => s + ndcgAt10(r, col.judgements.get(col.queries[i]!.id) ?? new Map()), 0) / col.queries.length;

export const documentTexts = (col: Cranfield) => col.docs.map((d) => embeddingText({ title: d.title, context: {}, content: d.content }));

/** Our BM25 ranking (balanced preset) of each query, top `depth`. */
export function lexicalLists(col: Cranfield): Ranked[][] {
  const index = new MemorySearchIndex(1);
  for (const d of col.docs) index.upsert(searchableDoc(d, 'bench'));
  const scope = { containerIds: new Set(['bench']), contentTypes: null, typeLimits: null };
  return col.queries.map((q) =>
    index
      .search({ text: q.text, vector: null, limit: depth, preset: 'balanced', candidates: depth, aperture: null, semanticWeight: 1, scope })
      .hits.map((h) => ({ id: h.id, score: h.score })),
  );
}

/** Exact cosine (unit vectors: the dot product) over all documents, top `depth`. */
export function vectorLists(col: Cranfield, docVectors: Float32Array[], queryVectors: Float32Array[]): Ranked[][] {
  return queryVectors.map((qv) =>
    docVectors
      .map((v, i) => {
        let dot = 0;
        for (let j = 0; j < v.length; j++) dot += v[j]! * qv[j]!;
        return { id: col.docs[i]!.id, score: dot };
      })
      .sort((a, b) => b.score - a.score)
      .slice(0, depth),
  );
}

/** The aperture as the search path applies it (rrf-fusion.ts fuseRetrievers): the floor, then the elbow. */
export function aperture(list: Ranked[], floor: number | null): Ranked[] {
  if (floor === null) return list;
  const kept = list.filter((h) => h.score >= floor);
  return kept.slice(
    0,
    elbowCut(
      kept.map((h) => h.score),
      defaultAperture,
    ),
  );
}

/** RRF of the lexical list and any semantic lists, each with its weight (the lexical one's is 1). */
export function fused(lexical: Ranked[][], semantic: { lists: Ranked[][]; weight: number; floor: number | null }[]): string[][] {
  return lexical.map((lex, q) => {
    const rankings: Record<string, Ranked[]> = { lexical: lex };
    const weights: Record<string, number> = {};
    semantic.forEach((s, i) => {
      rankings[`s${i}`] = aperture(s.lists[q]!, s.floor);
      weights[`s${i}`] = s.weight;
    });
    return reciprocalRankFusion(rankings, rrfK, weights)
      .slice(0, depth)
      .map((f) => f.id);
  });
}

export const ids = (lists: Ranked[][]) => lists.map((l) => l.map((h) => h.id));

/** Per weight, nDCG on each collection; the weight tuned on one is reported on the other. */
export function crossValidated<K>(byWeight: Map<K, [number, number]>): { tunedOn0: K; tunedOn1: K; on1: number; on0: number } {
  const best = (c: 0 | 1) => [...byWeight].reduce((a, b) => (b[1][c] > a[1][c] ? b : a))[0];
  const tunedOn0 = best(0);
  const tunedOn1 = best(1);
  return { tunedOn0, tunedOn1, on1: byWeight.get(tunedOn0)![1], on0: byWeight.get(tunedOn1)![0] };
}

/**
 * Documents per second of `embedder` over `texts`, one call per 64 (as the indexing activity batches);
 * the best of `rounds` passes, so a pass slowed by another process on the machine counts least.
 */
async function throughput(embedder: Embedder, texts: string[], rounds: number): Promise<number> {
  let best = 0;
  for (let r = 0; r < rounds; r++) {
    const start = performance.now();
    for (let i = 0; i < texts.length; i += 64) await embedder.embed(texts.slice(i, i + 64));
    best = Math.max(best, texts.length / ((performance.now() - start) / 1000));
  }
  return best;
}

/** Cosines of queries to their judged-relevant documents and to all documents: where "unrelated" ends. */
function cosineSpread(col: Cranfield, docVectors: Float32Array[], queryVectors: Float32Array[]): string {
  const rel: number[] = [];
  const all: number[] = [];
  const at = new Map(col.docs.map((d, i) => [d.id, i]));
  col.queries.forEach((q, qi) => {
    const qv = queryVectors[qi]!;
    const dot = (v: Float32Array) => v.reduce((s, x, j) => s + x * qv[j]!, 0);
    for (const [id, g] of col.judgements.get(q.id) ?? []) if (g > 0) rel.push(dot(docVectors[at.get(id)!]!));
    for (let i = qi % 7; i < docVectors.length; i += 7) all.push(dot(docVectors[i]!));
  });
  const pct = (xs: number[], p: number) => xs.sort((a, b) => a - b)[Math.floor((xs.length - 1) * p)]!.toFixed(3);
  return `all docs p50 ${pct(all, 0.5)} p95 ${pct(all, 0.95)}; relevant p10 ${pct(rel, 0.1)} p50 ${pct(rel, 0.5)}`;
}

async function main(): Promise<void> {
  const modelDir = defaultModelDir(devDir);
  const staticEmbedder = StaticEmbedder.load(modelDir);
  const miniLm = await MiniLmEmbedder.load(modelDir);
  const cols = [loadCranfield(), loadCacm()];
  const f = (x: number) => x.toFixed(4);
  const rows: string[][] = [];
  const hybrid = { static: new Map<number, [number, number]>(), minilm: new Map<number, [number, number]>() };
  const staticFloors = new Map<string, [number, number]>(); // `${floor} @ ${weight}`
  const staticOpen = new Map<number, [number, number]>(); // no aperture (a request may turn it off): by weight
  const lexicalOnly: [number, number] = [0, 0];
  const threeWay = new Map<number, [number, number]>();
  const speed: string[][] = [];
  for (const [c, col] of cols.entries()) {
    const texts = documentTexts(col);
    const queries = col.queries.map((q) => q.text);
    const lexical = lexicalLists(col);
    const lists: Record<string, Ranked[][]> = {};
    for (const e of [staticEmbedder, miniLm]) {
      const docVectors = e === miniLm ? await cachedEmbeddings(e, texts) : await e.embed(texts);
      const queryVectors = e === miniLm ? await cachedEmbeddings(e, queries) : await e.embed(queries);
      lists[e.id] = vectorLists(col, docVectors, queryVectors);
      console.log(`${col.name} ${e.id} cosines: ${cosineSpread(col, docVectors, queryVectors)}`);
    }
    const s = lists[staticEmbedder.id]!;
    const m = lists[miniLm.id]!;
    lexicalOnly[c] = meanNdcg(col, ids(lexical));
    rows.push([
      col.name,
      f(meanNdcg(col, ids(lexical))),
      f(meanNdcg(col, ids(s))),
      f(meanNdcg(col, ids(m))),
      f(meanNdcg(col, fused(lexical, [{ lists: s, weight: staticEmbedder.fusionWeight, floor: staticEmbedder.similarityFloor }]))),
      f(meanNdcg(col, fused(lexical, [{ lists: m, weight: miniLm.fusionWeight, floor: miniLm.similarityFloor }]))),
    ]);
    for (const w of weightGrid) {
      const put = (map: Map<number, [number, number]>, key: number, v: number) => {
        const pair = map.get(key) ?? [0, 0];
        pair[c] = v;
        map.set(key, pair);
      };
      put(hybrid.static, w, meanNdcg(col, fused(lexical, [{ lists: s, weight: w, floor: staticEmbedder.similarityFloor }])));
      put(hybrid.minilm, w, meanNdcg(col, fused(lexical, [{ lists: m, weight: w, floor: miniLm.similarityFloor }])));
      for (const floor of floorGrid) {
        const pair = staticFloors.get(`${floor} @ ${w}`) ?? [0, 0];
        pair[c] = meanNdcg(col, fused(lexical, [{ lists: s, weight: w, floor }]));
        staticFloors.set(`${floor} @ ${w}`, pair);
      }
      const open = staticOpen.get(w) ?? [0, 0];
      open[c] = meanNdcg(col, fused(lexical, [{ lists: s, weight: w, floor: null }]));
      staticOpen.set(w, open);
    }
    // A static tier next to MiniLM's: MiniLM at its weight, static at 0 (absent) … 1.5.
    for (const w of [0, ...weightGrid]) {
      const semantic = [{ lists: m, weight: miniLm.fusionWeight, floor: miniLm.similarityFloor }];
      if (w > 0) semantic.push({ lists: s, weight: w, floor: staticEmbedder.similarityFloor });
      const pair = threeWay.get(w) ?? [0, 0];
      pair[c] = meanNdcg(col, fused(lexical, semantic));
      threeWay.set(w, pair);
    }
    // Throughput on one core: MiniLM runs one intra-op thread (its default); the static embedder runs
    // in the calling thread. A sample of every 8th document, whole and cut to its first 30 words.
    const sample = texts.filter((_, i) => i % 8 === 0);
    const short = sample.map((t) => t.split(/\s+/).slice(0, 30).join(' '));
    await staticEmbedder.embed(sample.slice(0, 64)); // warm the tokenizer and the table
    const rates = [
      await throughput(staticEmbedder, sample, 5),
      await throughput(miniLm, sample, 1),
      await throughput(staticEmbedder, short, 5),
      await throughput(miniLm, short, 2),
    ];
    speed.push([
      col.name,
      String(sample.length),
      ...rates.map((r) => r.toFixed(r < 100 ? 1 : 0)),
      `${(rates[0]! / rates[1]!).toFixed(0)}× / ${(rates[2]! / rates[3]!).toFixed(0)}×`,
    ]);
  }
  const table = (header: string[], body: string[][]) => {
    const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => r[i]!.length)));
    const line = (r: string[]) => r.map((x, i) => x.padStart(widths[i]!)).join(' | ');
    console.log([line(header), line(header).replace(/[^|]/g, '-'), ...body.map(line)].join('\n'));
  };
  console.log(
    `\nnDCG@10 (${staticEmbedder.id} at weight ${staticEmbedder.fusionWeight}, ${miniLm.id} at ${miniLm.fusionWeight}; aperture on, each embedder's floor)`,
  );
  table(['collection', 'lexical', 'static', 'MiniLM', 'lex+static', 'lex+MiniLM'], rows);
  console.log('\nHybrid by RRF weight (Cranfield / CACM):');
  table(
    ['weight', 'lex+static', 'lex+MiniLM', `lex+MiniLM@${miniLm.fusionWeight}+static`],
    [0, ...weightGrid].map((w) => [
      String(w),
      hybrid.static.has(w) ? hybrid.static.get(w)!.map(f).join(' / ') : '—',
      hybrid.minilm.has(w) ? hybrid.minilm.get(w)!.map(f).join(' / ') : '—',
      threeWay.get(w)!.map(f).join(' / '),
    ]),
  );
  console.log(
    `\nlex+static by aperture floor (rows) and weight (columns), Cranfield / CACM; lexical alone ${lexicalOnly.map(f).join(' / ')}:`,
  );
  table(
    ['floor', ...weightGrid.map(String)],
    [
      ...floorGrid.map((floor) => [String(floor), ...weightGrid.map((w) => staticFloors.get(`${floor} @ ${w}`)!.map(f).join(' / '))]),
      ['no aperture', ...weightGrid.map((w) => staticOpen.get(w)!.map(f).join(' / '))],
    ],
  );
  console.log('\nCross-validated (tuned on one collection, nDCG@10 reported on the other; ÷ lexical alone there):');
  const cv = <K>(name: string, map: Map<K, [number, number]>) => {
    const r = crossValidated(map);
    return [
      name,
      `${String(r.tunedOn0)} → ${f(r.on1)} (${(r.on1 / lexicalOnly[1]).toFixed(3)}×)`,
      `${String(r.tunedOn1)} → ${f(r.on0)} (${(r.on0 / lexicalOnly[0]).toFixed(3)}×)`,
    ];
  };
  table(
    ['fusion', 'tuned Cranfield → CACM', 'tuned CACM → Cranfield'],
    [
      cv('lex+static (weight)', hybrid.static),
      cv('lex+static (floor @ weight)', staticFloors),
      cv('lex+MiniLM (weight)', hybrid.minilm),
      cv('lex+MiniLM+static (static weight)', threeWay),
    ],
  );
  console.log('\nDocuments/s on one core (every 8th document; short: its first 30 words; best of 5 passes static, 1–2 MiniLM):');
  table(['collection', 'docs', 'static', 'MiniLM', 'static short', 'MiniLM short', 'static ÷ MiniLM'], speed);
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) await main();
