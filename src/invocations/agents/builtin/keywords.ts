import { stemmer } from 'stemmer';
import { processTerm, tokenize } from '../../../search/analyzer.js';

/**
 * Keyword matching and picking for `tag-keywords` (issue #37), on search's own analyzer: its tokens,
 * stop words and Porter stemmer, so a rule's "telescope" matches "telescopes" and "telescopic" as the
 * search index would, and a tag is never a function word.
 */

/** A text as its sequence of stems (every token, stop words included, so phrases keep their shape). */
export const stemsOf = (text: string): string[] => tokenize(text).map((t) => stemmer(t.toLowerCase()));

/** Whether the stems of `phrase` (one word or several) occur in `stems`, consecutively. */
export function containsPhrase(stems: string[], phrase: string[]): boolean {
  if (phrase.length === 0) return false;
  outer: for (let i = 0; i + phrase.length <= stems.length; i++) {
    for (let j = 0; j < phrase.length; j++) if (stems[i + j] !== phrase[j]) continue outer;
    return true;
  }
  return false;
}

/**
 * Common English words that are not function words, so search keeps them, but that never make a
 * useful tag ("day", "every", "make"): a tag names what a text is about.
 */
const generalWords = new Set(
  `able across actual actually again ago ahead almost along already although always among another anyone anything
  around away back became become becomes best better big came case cases certain come comes common could day days
  different does done dont each early else end enough especially even ever every everyone everything example fact far
  few find first found four full gave general get gets give given gives going good got great group half hand hard
  have high however important include including into item kind know known large last later least less let like
  likely little long look lot made main make makes making many means might more most much must near need needs never
  next none often once only onto open other others otherwise part parts per perhaps place point possible present
  quite rather really result results right said same second see seem seems seen several shall shown side since small
  something sometimes soon still such sure take taken takes than thing things think third though three through thus
  time times today together told took toward towards true turn two type under unless upon used uses using usual
  usually various want way ways week weeks well went whole will within without work works year years yet
  past wherein whereas presence consider considered considers reference references employ employs employed obtain
  obtained obtains present presented presents describe described describes discuss discussed discusses show showed
  shows paper papers study studied studies approach based propose proposed proposes yield yields yielded induce
  induces induced construct constructed constructs available respect respectively order terms value values`.split(/\s+/),
);

export interface TermStats {
  /** Per stem: the texts it occurs in. */
  df: Map<string, number>;
  texts: number;
}

interface Counted {
  n: number;
  /** Surface forms seen, with their counts: the most frequent becomes the tag. */
  forms: Map<string, number>;
}

/** Candidate tag terms of one text: no stop words, no general words, no numbers, at least 4 letters. */
function candidates(text: string): Map<string, Counted> {
  const counts = new Map<string, Counted>();
  for (const token of tokenize(text)) {
    const lower = token.toLowerCase();
    // Adverbs ("-ly") say how, not what: not tags.
    if (lower.length < 4 || /\d/.test(lower) || generalWords.has(lower) || lower.endsWith('ly')) continue;
    const stem = processTerm(lower);
    if (!stem || generalWords.has(stem)) continue;
    const c = counts.get(stem) ?? { n: 0, forms: new Map<string, number>() };
    c.n += 1;
    c.forms.set(lower, (c.forms.get(lower) ?? 0) + 1);
    counts.set(stem, c);
  }
  return counts;
}

/** Document frequencies over the texts an invocation sees (its context: the workspace's drafts by default). */
export function termStats(texts: string[]): TermStats {
  const df = new Map<string, number>();
  for (const text of texts) for (const stem of candidates(text).keys()) df.set(stem, (df.get(stem) ?? 0) + 1);
  return { df, texts: texts.length };
}

/**
 * The text's most distinctive terms: tf-idf over the texts of `stats` (smoothed idf, so with a single
 * text it is term frequency), then first appearance. Each as its most frequent surface form.
 */
export function distinctiveTerms(text: string, stats: TermStats, count: number): string[] {
  const scored = [...candidates(text).entries()].map(([stem, c], order) => {
    const idf = Math.log((1 + stats.texts) / (1 + (stats.df.get(stem) ?? 0))) + 1;
    const form = [...c.forms.entries()].sort((a, b) => b[1] - a[1])[0]![0];
    return { form, score: c.n * idf, order };
  });
  const picked: string[] = [];
  for (const s of scored.sort((a, b) => b.score - a.score || a.order - b.order)) {
    if (!picked.includes(s.form)) picked.push(s.form);
    if (picked.length === count) break;
  }
  return picked;
}
