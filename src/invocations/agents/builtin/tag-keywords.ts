import { z } from 'zod';
import { defineAgent, isTextual } from '../types.js';
import { counted } from '../wording.js';
import { containsPhrase, distinctiveTerms, stemsOf, termStats } from './keywords.js';

const tagName = z.string().trim().min(1).max(64);

/**
 * Tags drafts by keywords: with `rules`, a tag for every rule one of whose keywords appears (whole
 * words, any case, any inflection: both sides are stemmed as search stems them); without, the
 * artifact's most distinctive terms (tf-idf over the texts the invocation sees, no stop words or
 * general words, no numbers). Proposes an update of `context.tags` (existing tags kept) only where a
 * tag is new.
 */
export const tagKeywords = defineAgent({
  name: 'tag-keywords',
  title: 'Tag by keywords',
  description:
    "Proposes adding tags to context.tags of workspace drafts: each tag of `rules` one of whose keywords appears in the text (in any inflection: 'telescope' matches 'telescopes'), or, without rules, the text's most distinctive terms among the drafts it sees.",
  usesLlm: false,
  actions: ['update'],
  params: z.strictObject({
    rules: z
      .record(tagName, z.array(z.string().trim().min(1).max(100)).min(1).max(100))
      .optional()
      .describe('Tag → keywords (words or phrases) that earn it; matched on their stems.'),
    count: z.int().min(1).max(20).default(5).describe('Without rules: how many distinctive terms become tags.'),
  }),
  async run({ artifacts, params }) {
    const rules =
      params.rules &&
      Object.entries(params.rules).map(([tag, keywords]) => ({ tag, phrases: keywords.map(stemsOf).filter((p) => p.length > 0) }));
    const taggable = artifacts.filter((x) => x.in_workspace && isTextual(x));
    const textOf = (a: (typeof taggable)[number]) => `${a.title}\n${a.content}`;
    const stats = rules ? null : termStats(taggable.map(textOf));
    const actions = [];
    for (const a of taggable) {
      const text = textOf(a);
      let found: string[];
      if (rules) {
        const stems = stemsOf(text);
        found = rules.filter((r) => r.phrases.some((p) => containsPhrase(stems, p))).map((r) => r.tag);
      } else found = distinctiveTerms(text, stats!, params.count);
      const current = Array.isArray(a.context.tags) ? a.context.tags.filter((t): t is string => typeof t === 'string') : [];
      const added = found.filter((t) => !current.includes(t));
      if (added.length === 0) continue;
      actions.push({
        kind: 'update' as const,
        target: a.id,
        payload: { context: { tags: [...current, ...added] } },
        rationale: rules
          ? `Keywords of ${added.map((t) => `"${t}"`).join(', ')} appear in the text.`
          : `Most distinctive terms: ${added.join(', ')}.`,
      });
    }
    return { actions, output: `${counted(actions.length, 'artifact')} ${actions.length === 1 ? 'gets' : 'get'} new tags.` };
  },
});
