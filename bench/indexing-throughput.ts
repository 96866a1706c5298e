// MiniLM embedding throughput (issue #23, "indexing in batches"): documents per second on Cranfield
// and CACM abstracts, for the embedder as it was (batches of 16 sorted by length, one thread) against
// the current defaults (one text per inference call) and the settings one can change
// (EMBEDDINGS_THREADS, EMBEDDINGS_MAX_TOKENS, graph optimisations), measured in the same run and
// interleaved (the machine is shared: run it more than once and read the spread). Also the
// tokenizer's share of the time. Usage: node --import tsx bench/indexing-throughput.ts [docs] [rounds]
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { embeddingText } from '../src/search/documents.js';
import { defaultMiniLmOptions, defaultModelDir, MiniLmEmbedder, type MiniLmOptions } from '../src/search/minilm.js';
import { loadCacm, loadCranfield } from './collections.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const sample = Number(process.argv[2] ?? 128);
const rounds = Number(process.argv[3] ?? 2);
/** Texts per embedder call, as the indexing activity hands them over. */
const callSize = 64;

const variants: { name: string; options: Partial<MiniLmOptions> }[] = [
  { name: 'before: batches of 16 sorted by length', options: { batchSize: 16 } },
  { name: 'now: defaults (one text per call)', options: {} },
  { name: 'batches of 4 sorted by length', options: { batchSize: 4 } },
  { name: 'EMBEDDINGS_THREADS=2', options: { threads: 2 } },
  { name: "graph optimisations 'basic'", options: { graphOptimizationLevel: 'basic' } },
  { name: 'EMBEDDINGS_MAX_TOKENS=128 (truncates)', options: { maxTokens: 128 } },
];

async function main(): Promise<void> {
  const modelDir = defaultModelDir(resolve(repoRoot, process.env.PLATFORM_DEV_DIR ?? '.dev'));
  const embedders = await Promise.all(variants.map((v) => MiniLmEmbedder.load(modelDir, v.options)));
  console.log(`defaults: ${JSON.stringify(defaultMiniLmOptions)}; ${sample} docs per collection, ${rounds} rounds, calls of ${callSize}`);
  for (const col of [loadCranfield(), loadCacm()]) {
    const texts = col.docs.slice(0, sample).map((d) => embeddingText({ title: d.title, context: {}, content: d.content }));
    const rates = variants.map(() => [] as number[]);
    await Promise.all(embedders.map((e) => e.embed(texts.slice(0, 4)))); // warm up
    for (let r = 0; r < rounds; r++)
      for (const [i, embedder] of embedders.entries()) {
        const t = performance.now();
        for (let s = 0; s < texts.length; s += callSize) await embedder.embed(texts.slice(s, s + callSize));
        rates[i]!.push(texts.length / ((performance.now() - t) / 1000));
      }
    const tokenizer = embedders[1]!;
    const t = performance.now();
    const tokens = texts.reduce((n, text) => n + tokenizer.tokenCount(text), 0);
    const tokenizing = (performance.now() - t) / 1000;
    const base = rates[0]!;
    console.log(
      `\n${col.name}: ${(tokens / texts.length).toFixed(0)} tokens per text on average; tokenizing takes ${((tokenizing / (texts.length / Math.max(...rates[1]!))) * 100).toFixed(1)} % of the default's time`,
    );
    for (const [i, v] of variants.entries()) {
      const rs = rates[i]!;
      const ratios = rs.map((x, k) => x / base[k]!);
      console.log(
        `  ${v.name.padEnd(48)} ${rs.map((x) => x.toFixed(1)).join(' / ')} docs/s   ×${ratios.map((x) => x.toFixed(2)).join(' / ')} vs before (goal 100 docs/s)`,
      );
    }
  }
}

await main();
