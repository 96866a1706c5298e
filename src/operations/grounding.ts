import { terms } from '../search/analyzer.js';
import type { ArtifactDoc } from '../store/artifacts.js';
import type { OperationContext } from './services.js';
import { runSearch, searchBody } from './search.js';

const passageChars = 600;

/** One search hit an answer may rest on: the artifact, where it lives, its score, and its best passage. */
export type Passage = { id: string; title: string; container: { kind: string; id: string }; score: number; passage: string };

/** The paragraph of an artifact that shares the most terms with the question, cut to a passage. */
export function bestPassage(doc: ArtifactDoc, question: string): string {
  const wanted = new Set(terms(question));
  const text = doc.search_text?.text ?? doc.content;
  let best = { score: -1, paragraph: '' };
  for (const paragraph of text.split(/\n\s*\n/)) {
    const score = terms(paragraph).filter((t) => wanted.has(t)).length;
    if (score > best.score) best = { score, paragraph: paragraph.trim() };
  }
  return best.paragraph.length > passageChars ? `${best.paragraph.slice(0, passageChars)}…` : best.paragraph;
}

/**
 * The grounding of an answer (`ask`, and each chat turn): hybrid search as the caller (only what they
 * may search and read), then each hit's best passage. Shared so both answer from the same hits.
 */
export async function groundingPassages(
  ctx: OperationContext,
  question: string,
  limit: number,
  scope: { workspace_ids?: string[] | undefined; collection_ids?: string[] | undefined },
  keep: (doc: ArtifactDoc) => boolean = () => true,
): Promise<Passage[]> {
  const found = await runSearch(
    ctx,
    searchBody.parse({
      query: question,
      limit,
      ...(scope.workspace_ids ? { workspace_ids: scope.workspace_ids } : {}),
      ...(scope.collection_ids ? { collection_ids: scope.collection_ids } : {}),
    }),
  );
  const docs = new Map((await ctx.services.artifacts.getMany(found.results.map((r) => r.id))).map((d) => [d._id, d]));
  return found.results.flatMap((r) => {
    const doc = docs.get(r.id);
    return doc && keep(doc)
      ? [{ id: r.id, title: r.title, container: r.container, score: r.score, passage: bestPassage(doc, question) }]
      : [];
  });
}

export { answerNotes } from '../artifacts/chat-answer.js';
