// The lexical engines `bench:search` measures ours against (issue #23), each in its usual configuration:
// MiniSearch and Orama by default, wink-bm25 with stemming and stop words, and Lucene 9's BM25 with its
// EnglishAnalyzer through a small Java runner on the classpath Maven resolves (bench/lucene/).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { create, insertMultiple, search as oramaSearch } from '@orama/orama';
import MiniSearch from 'minisearch';
import type { Cranfield, CranQuery } from './collections.js';

/** A peer's ranking for every query of a collection, or why it is unavailable. */
export interface Peer {
  name: string;
  rank: (query: CranQuery) => string[] | Promise<string[]>;
}

const require = createRequire(import.meta.url);
const luceneDir = resolve(dirname(fileURLToPath(import.meta.url)), 'lucene');

export async function lexicalPeers(col: Cranfield, depth: number): Promise<{ peers: Peer[]; unavailable: string[] }> {
  const peers: Peer[] = [];
  const unavailable: string[] = [];

  const mini = new MiniSearch<{ id: string; title: string; content: string }>({ fields: ['title', 'content'] });
  mini.addAll(col.docs);
  peers.push({
    name: 'MiniSearch 7 (default: title+content, no stemming)',
    rank: (q) =>
      mini
        .search(q.text)
        .slice(0, depth)
        .map((r) => String(r.id)),
  });

  const orama = create({ schema: { title: 'string', content: 'string' } as const });
  await insertMultiple(
    orama,
    col.docs.map((d) => ({ id: d.id, title: d.title, content: d.content })),
  );
  peers.push({
    name: 'Orama 3 (default BM25)',
    rank: async (q) => (await oramaSearch(orama, { term: q.text, limit: depth })).hits.map((h) => h.id),
  });

  peers.push(wink(col, depth));

  try {
    peers.push(lucene(col, depth));
  } catch (err) {
    unavailable.push(`Lucene: unavailable (${(err as Error).message.split('\n')[0]})`);
  }
  return { peers, unavailable };
}

function wink(col: Cranfield, depth: number): Peer {
  const bm25 = require('wink-bm25-text-search');
  const nlp = require('wink-nlp-utils');
  const engine = bm25();
  engine.defineConfig({ fldWeights: { title: 1, content: 1 } });
  engine.definePrepTasks([
    nlp.string.lowerCase,
    nlp.string.tokenize0,
    nlp.tokens.removeWords,
    nlp.tokens.stem,
    nlp.tokens.propagateNegations,
  ]);
  col.docs.forEach((d) => engine.addDoc({ title: d.title, content: d.content }, d.id));
  engine.consolidate();
  return {
    name: 'wink-bm25 3 (stemming, stop words)',
    rank: (q) => (engine.search(q.text, depth) as [string, number][]).map(([id]) => String(id)),
  };
}

/** Lucene ranks every query at once in one JVM; the rankings are then served from memory. */
function lucene(col: Cranfield, depth: number): Peer {
  const classpath = luceneClasspath();
  const dir = mkdtempSync(join(tmpdir(), 'bench-lucene-'));
  try {
    const line = (id: string | number, text: string) => `${id}\t${text.replace(/\s+/g, ' ')}\n`;
    writeFileSync(join(dir, 'docs.tsv'), col.docs.map((d) => line(d.id, `${d.title} ${d.content}`)).join(''));
    writeFileSync(join(dir, 'queries.tsv'), col.queries.map((q) => line(q.id, q.text)).join(''));
    const out = execFileSync(
      'java',
      ['-cp', classpath, join(luceneDir, 'LuceneBm25.java'), join(dir, 'docs.tsv'), join(dir, 'queries.tsv'), String(depth)],
      { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: 300_000 },
    );
    const rankings = new Map<number, string[]>();
    for (const row of out.split('\n')) {
      const [id, ranked] = row.split('\t');
      if (id) rankings.set(Number(id), ranked ? ranked.split(' ') : []);
    }
    return { name: 'Lucene 9.12 (BM25, EnglishAnalyzer)', rank: (q) => rankings.get(q.id) ?? [] };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

let cachedClasspath: string | undefined;

/** Lucene's jars, resolved by Maven from bench/lucene/pom.xml (downloaded into the local repository once). */
function luceneClasspath(): string {
  if (cachedClasspath) return cachedClasspath;
  const file = join(mkdtempSync(join(tmpdir(), 'bench-lucene-cp-')), 'classpath');
  execFileSync('mvn', ['-q', '-B', '-f', join(luceneDir, 'pom.xml'), 'dependency:build-classpath', `-Dmdep.outputFile=${file}`], {
    stdio: ['ignore', 'ignore', 'pipe'],
    timeout: 600_000,
  });
  cachedClasspath = readFileSync(file, 'utf8').trim();
  return cachedClasspath;
}
