import { z } from 'zod';
import { processTerm, tokenize } from '../../../search/analyzer.js';
import { defineAgent, isTextual, type AgentArtifact } from '../types.js';

const tagName = z.string().trim().min(1).max(64);

/** The most frequent index terms of a text (stopwords out), by count then first appearance. */
function topTerms(a: AgentArtifact, count: number): string[] {
  const counts = new Map<string, { n: number; word: string }>();
  for (const token of tokenize(`${a.title}\n${a.content}`)) {
    const term = processTerm(token);
    if (!term || /^\d+$/.test(term) || term.length < 3) continue;
    const seen = counts.get(term);
    if (seen) seen.n++;
    else counts.set(term, { n: 1, word: token.toLowerCase() });
  }
  return [...counts.values()]
    .sort((x, y) => y.n - x.n)
    .slice(0, count)
    .map((c) => c.word);
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Tags drafts by keywords: with `rules`, a tag for every rule one of whose keywords appears (whole
 * words, any case); without, the artifact's most frequent terms. Proposes an update of
 * `context.tags` (existing tags kept) only where a tag is new.
 */
export const tagKeywords = defineAgent({
  name: 'tag-keywords',
  title: 'Tag by keywords',
  description:
    "Proposes adding tags to context.tags of workspace drafts: each tag of `rules` whose keywords appear in the text, or, without rules, the text's most frequent terms.",
  usesLlm: false,
  actions: ['update'],
  params: z.strictObject({
    rules: z
      .record(tagName, z.array(z.string().trim().min(1).max(100)).min(1).max(100))
      .optional()
      .describe('Tag → keywords that earn it.'),
    count: z.int().min(1).max(20).default(5).describe('Without rules: how many frequent terms become tags.'),
  }),
  async run({ artifacts, params }) {
    const rules =
      params.rules &&
      Object.entries(params.rules).map(([tag, keywords]) => ({
        tag,
        pattern: new RegExp(`(^|[^\\p{L}\\p{N}])(${keywords.map(escape).join('|')})(?=$|[^\\p{L}\\p{N}])`, 'iu'),
      }));
    const actions = [];
    for (const a of artifacts.filter((x) => x.in_workspace && isTextual(x))) {
      const text = `${a.title}\n${a.content}`;
      const found = rules ? rules.filter((r) => r.pattern.test(text)).map((r) => r.tag) : topTerms(a, params.count);
      const current = Array.isArray(a.context.tags) ? a.context.tags.filter((t): t is string => typeof t === 'string') : [];
      const added = found.filter((t) => !current.includes(t));
      if (added.length === 0) continue;
      actions.push({
        kind: 'update' as const,
        target: a.id,
        payload: { context: { tags: [...current, ...added] } },
        rationale: rules
          ? `Keywords of ${added.map((t) => `"${t}"`).join(', ')} appear in the text.`
          : `Most frequent terms: ${added.join(', ')}.`,
      });
    }
    return { actions, output: `${actions.length} artifacts get new tags.` };
  },
});
