// MiniLM embedding throughput (issue #23, "indexing in batches"): documents per second on Cranfield
// and CACM abstracts, for the embedder as it was (2 spinning intra-op threads, batches in input order)
// against the current defaults, measured in the same run and interleaved (the machine is shared: run
// it more than once and read the spread). Usage: node --import tsx bench/indexing-throughput.ts [docs] [rounds]
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { embeddingText } from '../src/search/documents.js';
import { defaultMiniLmOptions, defaultModelDir, MiniLmEmbedder, type MiniLmOptions } from '../src/search/minilm.js';
import { loadCacm, loadCranfield } from './collections.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const sample = Number(process.argv[2] ?? 192);
const rounds = Number(process.argv[3] ?? 2);
/** Texts per embedder call, as the indexing activity hands them over. */
const callSize = 64;

const variants: { name: string; options: Partial<MiniLmOptions> }[] = [
  { name: 'before: 2 threads, spinning, input order', options: { threads: 2, spinning: true, sortByLength: false, batchSize: 16 } },
  { name: 'now: defaults', options: {} },
  { name: '2 threads, no spinning, sorted', options: { threads: 2, spinning: false } },
  { name: '1 thread, spinning, sorted', options: { threads: 1, spinning: true } },
  { name: 'now, 128 tokens (not the default: truncates)', options: { maxTokens: 128 } },
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
    const base = rates[0]!;
    console.log(`\n${col.name}`);
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
