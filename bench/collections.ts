// Loaders for the IR test collections in ../shared/data: Cranfield and CACM (see their READMEs).
import { readFileSync } from 'node:fs';
import type { SearchableDoc } from '../src/search/memory-index.js';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const dataDir = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'shared', 'data');
export const cranfieldDir = resolve(dataDir, 'cranfield');
export const cacmDir = resolve(dataDir, 'cacm');

export interface CranDoc {
  id: string;
  title: string;
  content: string;
}

export interface CranQuery {
  id: number;
  text: string;
}

export interface Cranfield {
  name: string;
  docs: CranDoc[];
  queries: CranQuery[];
  /** Query id → doc id → gain (Cranfield: 5 − code for codes 1..4, 0 for −1; CACM: 1). Only judged queries are kept. */
  judgements: Map<number, Map<string, number>>;
}

/** Splits a SMART-format file into records of `.X` fields, one record per `.I` line. */
function records(text: string): { id: string; fields: Record<string, string> }[] {
  const out: { id: string; fields: Record<string, string> }[] = [];
  let field = '';
  for (const line of text.replace(/\r\n?/g, '\n').split('\n')) {
    const marker = /^\.([A-Z])\b\s*(.*)$/.exec(line);
    if (marker?.[1] === 'I') {
      out.push({ id: marker[2]!.trim(), fields: {} });
      field = '';
    } else if (marker) {
      field = marker[1]!;
      out.at(-1)!.fields[field] = marker[2] ?? '';
    } else if (field && out.length > 0) {
      const rec = out.at(-1)!;
      rec.fields[field] = rec.fields[field] ? `${rec.fields[field]}\n${line}` : line;
    }
  }
  return out;
}

const clean = (s: string | undefined) => (s ?? '').replace(/\s+/g, ' ').trim();

export function loadCranfield(dir = cranfieldDir): Cranfield {
  const docs = records(readFileSync(resolve(dir, 'cran.all.1400'), 'utf8')).map((r) => ({
    id: r.id,
    title: clean(r.fields.T),
    content: clean(r.fields.W),
  }));
  // The .I numbers of cran.qry are not the judgement ids: queries are numbered 1..225 in file order.
  const queries = records(readFileSync(resolve(dir, 'cran.qry'), 'utf8')).map((r, i) => ({ id: i + 1, text: clean(r.fields.W) }));
  const judgements = new Map<number, Map<string, number>>();
  for (const line of readFileSync(resolve(dir, 'cranqrel'), 'utf8').split('\n')) {
    const [q, d, c] = line.trim().split(/\s+/);
    if (!q || !d || !c) continue;
    const code = Number(c);
    const gain = code >= 1 && code <= 4 ? 5 - code : 0;
    const perQuery = judgements.get(Number(q)) ?? new Map<string, number>();
    perQuery.set(d, gain);
    judgements.set(Number(q), perQuery);
  }
  if (docs.length !== 1400 || queries.length !== 225)
    throw new Error(`Cranfield: ${docs.length} docs, ${queries.length} queries (expected 1400, 225)`);
  return { name: 'Cranfield', docs, queries, judgements };
}

/**
 * CACM: 3,204 records, 64 queries of which 52 are judged (only those are kept), binary gain. A
 * record's text is its abstract, keywords and authors (a query may ask for an author); its
 * citations (.X) are not text.
 */
export function loadCacm(dir = cacmDir): Cranfield {
  const docs = records(readFileSync(resolve(dir, 'cacm.all'), 'utf8')).map((r) => ({
    id: r.id,
    title: clean(r.fields.T),
    content: [r.fields.W, r.fields.K, r.fields.A].map(clean).filter(Boolean).join(' '),
  }));
  const judgements = new Map<number, Map<string, number>>();
  for (const line of readFileSync(resolve(dir, 'qrels.text'), 'utf8').split('\n')) {
    const [q, d] = line.trim().split(/\s+/);
    if (!q || !d) continue;
    const perQuery = judgements.get(Number(q)) ?? new Map<string, number>();
    perQuery.set(String(Number(d)), 1);
    judgements.set(Number(q), perQuery);
  }
  const queries = records(readFileSync(resolve(dir, 'query.text'), 'utf8'))
    .map((r) => ({ id: Number(r.id), text: clean(r.fields.W) }))
    .filter((q) => judgements.has(q.id));
  if (docs.length !== 3204 || queries.length !== 52)
    throw new Error(`CACM: ${docs.length} docs, ${queries.length} judged queries (expected 3204, 52)`);
  return { name: 'CACM', docs, queries, judgements };
}

/** nDCG@10 at exponential gain: DCG = Σ (2^gain_i − 1) / log2(i + 1), ideal DCG from the query's judged gains sorted. */
export function ndcgAt10(ranked: string[], gains: Map<string, number>): number {
  const dcg = (gs: number[]) => gs.slice(0, 10).reduce((sum, g, i) => sum + (2 ** g - 1) / Math.log2(i + 2), 0);
  const ideal = dcg([...gains.values()].sort((a, b) => b - a));
  return ideal === 0 ? 0 : dcg(ranked.map((id) => gains.get(id) ?? 0)) / ideal;
}

/** A collection's document as the bench indexes it: plain text in one collection, with its vector when it has one. */
export function searchableDoc(d: CranDoc, collection: string, vector?: Float32Array): SearchableDoc {
  return {
    id: d.id,
    title: d.title,
    description: '',
    content: d.content,
    content_type: 'text/plain',
    collection_id: collection,
    container_kind: 'collection',
    revision: 1,
    ...(vector ? { vector } : {}),
  };
}
