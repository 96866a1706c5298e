import { stemmer } from 'stemmer';

/** English function words: they carry no topic, and would only add noise to both retrievers. */
const stopwords = new Set(
  `a about above after again against all am an and any are as at be because been before being below between both but by
  can could did do does doing down during each few for from further had has have having he her here hers herself him
  himself his how i if in into is it its itself just me more most my myself no nor not now of off on once only or other
  our ours ourselves out over own same she should so some such than that the their theirs them themselves then there
  these they this those through to too under until up very was we were what when where which while who whom why will
  with would you your yours yourself yourselves also may must shall upon within without whether however thus`.split(/\s+/),
);

const splitter = /[^\p{L}\p{N}]+/u;

export function tokenize(text: string): string[] {
  return text.split(splitter).filter(Boolean);
}

/** One token to its index term: lower-cased and Porter-stemmed, or null for a stopword or a lone letter. */
export function processTerm(token: string): string | null {
  const lower = token.toLowerCase();
  if (lower.length < 2 || stopwords.has(lower)) return null;
  return stemmer(lower);
}

export function terms(text: string): string[] {
  return tokenize(text)
    .map(processTerm)
    .filter((t): t is string => t !== null);
}
