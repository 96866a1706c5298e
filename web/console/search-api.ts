// What the search page (search.tsx) keeps in its address and sends to POST /artifacts/search: the
// query, the boost preset, the limit, the aperture and the filters, read from and written to the query
// string (so back and forward work and a search can be shared), and the request body they make. The
// page's words for the ranking details are here too, and the snippet it cuts from an artifact's text,
// marked with the index's own analyzer so that what is marked is what BM25 matched.
// Extensions spelled out: the unit test compiles this file under Node's resolution too.
import { processTerm, tokenize } from '../../src/search/analyzer.js';

export type ContainerKind = 'workspace' | 'collection';

export type Preset = 'balanced' | 'description-first' | 'content-heavy';

/** The presets (SPEC §1), each in words a reader understands. */
export const presets: { name: Preset; label: string; hint: string }[] = [
  { name: 'balanced', label: 'Balanced', hint: 'Title first, then description and text alike.' },
  { name: 'description-first', label: 'Description first', hint: 'Words in an artifact’s description count most.' },
  { name: 'content-heavy', label: 'Content heavy', hint: 'Words in the body text count most.' },
];

const numberFields = ['limit', 'candidates', 'min_score', 'min_keep', 'min_candidates', 'flat_spread'] as const;
export type NumberField = (typeof numberFields)[number];

/** A search as the address holds it. Numbers stay text until sent: a bad one is the API's to refuse. */
export interface SearchState {
  q: string;
  preset: string;
  /** The aperture (the cut of the semantic neighbourhood at its elbow): on unless switched off. */
  aperture: boolean;
  numbers: Partial<Record<NumberField, string>>;
  workspaces: string[];
  collections: string[];
  types: string[];
}

export const defaultLimit = '10';

export function readState(search: string): SearchState {
  const params = new URLSearchParams(search);
  const numbers: SearchState['numbers'] = {};
  for (const field of numberFields) {
    const value = params.get(field);
    if (value !== null && value !== '') numbers[field] = value;
  }
  return {
    q: params.get('q') ?? '',
    preset: params.get('preset') ?? 'balanced',
    aperture: params.get('aperture') !== 'off',
    numbers,
    workspaces: params.getAll('workspace'),
    collections: params.getAll('collection'),
    types: params.getAll('type'),
  };
}

/** The page's address for a search: defaults left out, so a plain search reads `/console/search?q=…`. */
export function searchPath(state: SearchState): string {
  const params = new URLSearchParams();
  if (state.q) params.set('q', state.q);
  if (state.preset !== 'balanced') params.set('preset', state.preset);
  if (!state.aperture) params.set('aperture', 'off');
  for (const field of numberFields) {
    const value = state.numbers[field]?.trim();
    if (value) params.set(field, value);
  }
  for (const id of state.workspaces) params.append('workspace', id);
  for (const id of state.collections) params.append('collection', id);
  for (const type of state.types) params.append('type', type);
  const query = params.toString();
  return `/console/search${query ? `?${query}` : ''}`;
}

/** What a search changes from the defaults, in words ("" when nothing): shown while the controls are folded. */
export function refinements(state: SearchState): string {
  const words: string[] = [];
  const preset = presets.find((p) => p.name === state.preset);
  if (state.preset !== 'balanced') words.push((preset?.label ?? state.preset).toLowerCase());
  if (!state.aperture) words.push('aperture off');
  if (state.numbers.limit) words.push(`at most ${state.numbers.limit}`);
  const where = state.workspaces.length + state.collections.length;
  if (where) words.push(`${where} ${where === 1 ? 'place' : 'places'}`);
  if (state.types.length) words.push(state.types.join(', '));
  const advanced = (['candidates', 'min_score', 'min_keep', 'min_candidates', 'flat_spread'] as const).filter((f) => state.numbers[f]);
  if (advanced.length) words.push('advanced settings');
  return words.join('; ');
}

/** A number as typed: a number when it is one, else the text (the API says what is wrong with it). */
const asNumber = (text: string): number | string => (text.trim() !== '' && Number.isFinite(Number(text)) ? Number(text) : text);

/** The body of POST /artifacts/search for a search (its query not empty). */
export function requestBody(state: SearchState): Record<string, unknown> {
  const n = state.numbers;
  const aperture: Record<string, unknown> = { enabled: state.aperture };
  if (state.aperture) {
    if (n.min_score) aperture.min_score = asNumber(n.min_score);
    if (n.min_keep) aperture.min_keep = asNumber(n.min_keep);
    if (n.min_candidates) aperture.min_candidates = asNumber(n.min_candidates);
    if (n.flat_spread) aperture.flat_spread = asNumber(n.flat_spread);
  }
  return {
    query: state.q.trim(),
    preset: state.preset,
    limit: asNumber(n.limit ?? defaultLimit),
    ...(n.candidates ? { candidates: asNumber(n.candidates) } : {}),
    aperture,
    ...(state.workspaces.length ? { workspace_ids: state.workspaces } : {}),
    ...(state.collections.length ? { collection_ids: state.collections } : {}),
    ...(state.types.length ? { content_types: state.types } : {}),
  };
}

export interface RetrieverHit {
  rank: number;
  score: number;
  /** No vector stored yet: the semantic rank stands in where the lexical one puts it. */
  imputed?: true;
}

/** One result of POST /artifacts/search. */
export interface SearchHit {
  id: string;
  title: string;
  content_type: string;
  container: { kind: ContainerKind; id: string };
  score: number;
  retrievers: { lexical?: RetrieverHit; semantic?: RetrieverHit };
}

export interface SearchAnswer {
  query: string;
  preset: string;
  results: SearchHit[];
  retrievers: {
    lexical: { candidates: number; weight: number };
    semantic: { candidates: number; kept: number; embedder: string; weight: number };
  };
  took_ms: number;
}

/** How a result was found, in plain words. */
export function foundBy(hit: SearchHit): { key: 'both' | 'words' | 'meaning'; label: string } {
  const words = hit.retrievers.lexical !== undefined;
  const meaning = hit.retrievers.semantic !== undefined && !hit.retrievers.semantic.imputed;
  if (words && meaning) return { key: 'both', label: 'Matched your words and similar in meaning' };
  if (meaning) return { key: 'meaning', label: 'Similar in meaning' };
  return { key: 'words', label: 'Matched your words' };
}

const ordinal = (n: number) => {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
};

const fixed = (n: number, digits: number) => n.toFixed(digits);

/** "Why this result": each ranking in words, then the sum that placed it. */
export function explain(hit: SearchHit, answer: SearchAnswer): { lines: string[]; sum: string } {
  const { lexical, semantic } = hit.retrievers;
  const lines: string[] = [];
  const terms: string[] = [];
  const wLex = answer.retrievers.lexical.weight;
  const wSem = answer.retrievers.semantic.weight;
  if (lexical) {
    lines.push(
      `Word match (BM25): ranked ${ordinal(lexical.rank)} of ${answer.retrievers.lexical.candidates}, score ${fixed(lexical.score, 3)}. ` +
        'Your words appear in it; rarer words, and words in the title, count more.',
    );
    terms.push(`${wLex} / (60 + ${lexical.rank})`);
  } else lines.push('Word match (BM25): none of your words appear in it.');
  if (semantic?.imputed) {
    lines.push(
      `Meaning (vectors): not measured yet, its embedding is still being computed; until then it keeps the place its words give it (${ordinal(semantic.rank)}).`,
    );
  } else if (semantic) {
    lines.push(
      `Meaning (vectors, ${answer.retrievers.semantic.embedder}): ranked ${ordinal(semantic.rank)} of ${answer.retrievers.semantic.kept} kept, ` +
        `similarity ${fixed(semantic.score, 3)}. It talks about something close to your search, whatever its words.`,
    );
    terms.push(`${wSem} / (60 + ${semantic.rank})`);
  } else lines.push('Meaning (vectors): not among the closest meanings kept.');
  const added = (lexical ? wLex / (60 + lexical.rank) : 0) + (semantic && !semantic.imputed ? wSem / (60 + semantic.rank) : 0);
  const exact = Math.abs(added - hit.score) < 1e-6;
  return {
    lines,
    sum:
      `Fused score (Reciprocal Rank Fusion): ${terms.join(' + ')} ${exact ? '=' : '≈'} ${fixed(hit.score, 4)}. ` +
      'Each ranking adds its weight divided by 60 plus its rank; results are shown by this sum' +
      (exact ? '.' : ', and the meaning ranking counts for less while some embeddings are still being computed.'),
  };
}

/** Content types in words; anything else is shown as it is. */
const typeLabels: Record<string, string> = {
  'text/markdown': 'Markdown',
  'text/plain': 'Text',
  'text/html': 'Web page',
  'text/csv': 'Table (CSV)',
  'application/json': 'JSON',
  'application/pdf': 'PDF',
  'application/vnd.platform.chat+json': 'Chat',
  'application/vnd.platform.view+json': 'View',
  'application/vnd.platform.stream+json': 'Stream',
  'application/vnd.platform.mcp-server+json': 'MCP server',
  'application/vnd.platform.mcp-client+json': 'MCP client configuration',
  'application/vnd.platform.authorizer+json': 'Authorizer',
};

export function typeLabel(contentType: string): string {
  const base = contentType.split(';')[0]!.trim().toLowerCase();
  if (typeLabels[base]) return typeLabels[base];
  const [major] = base.split('/');
  if (major === 'image') return 'Image';
  if (major === 'audio') return 'Audio';
  if (major === 'video') return 'Video';
  return contentType;
}

/** Whether an artifact of this type is text a person reads (not media, a PDF, or a platform type's JSON record). */
export const hasText = (contentType: string) => /^(text\/|application\/(json|xml|yaml|x-yaml|markdown)\b)/i.test(contentType);

/** Markdown as the words a reader sees: no heading marks, emphasis, code ticks, bullets, or link targets. */
export function markdownText(text: string): string {
  return text
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/^\s{0,3}(#{1,6}|>|[-+*]|\d+[.)])\s+/gm, '')
    .replace(/(\*\*|__|\*|`+|~~)/g, '')
    .replace(/(^|\s)_(\S)/g, '$1$2')
    .replace(/(\S)_(\s|$)/g, '$1$2');
}

export type SnippetPart = { text: string; mark: boolean };

/**
 * About `width` characters of `text` around the first of the query's terms it holds, split into
 * parts to mark (a word whose index term is one of the query's) and parts to leave; the start of the
 * text when no term occurs.
 */
export function snippet(text: string, query: string, width = 220): SnippetPart[] {
  const flat = text.replace(/\s+/g, ' ').trim();
  const wanted = new Set(
    tokenize(query)
      .map(processTerm)
      .filter((t): t is string => t !== null),
  );
  const word = /[\p{L}\p{N}]+/gu;
  const isWanted = (w: string) => {
    const term = processTerm(w);
    return term !== null && wanted.has(term);
  };
  let first = -1;
  for (const m of flat.matchAll(word)) {
    if (isWanted(m[0])) {
      first = m.index;
      break;
    }
  }
  let start = first < 0 ? 0 : Math.max(0, first - Math.floor(width / 3));
  if (start > 0) start = flat.indexOf(' ', start) + 1 || start;
  let end = Math.min(flat.length, start + width);
  if (end < flat.length) end = flat.lastIndexOf(' ', end) > start ? flat.lastIndexOf(' ', end) : end;
  const cut = flat.slice(start, end);
  const parts: SnippetPart[] = start > 0 ? [{ text: '… ', mark: false }] : [];
  let at = 0;
  for (const m of cut.matchAll(word)) {
    if (!isWanted(m[0])) continue;
    if (m.index > at) parts.push({ text: cut.slice(at, m.index), mark: false });
    parts.push({ text: m[0], mark: true });
    at = m.index + m[0].length;
  }
  if (at < cut.length) parts.push({ text: cut.slice(at), mark: false });
  if (end < flat.length) parts.push({ text: ' …', mark: false });
  return parts;
}
