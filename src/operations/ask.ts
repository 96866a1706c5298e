import { z } from 'zod';
import { agentByName } from '../invocations/agents/registry.js';
import { llmConfigured } from '../llm/client.js';
import { terms } from '../search/analyzer.js';
import type { ArtifactDoc } from '../store/artifacts.js';
import type { OperationContext } from './services.js';
import { startAgent } from './agent-runs.js';
import type { AgentRunState } from '../workflows/contracts/agent-run.js';
import { runSearch, searchBody } from './search.js';

const passageChars = 600;

/** The input of the `ask` tool (docs/decisions.md). */
export const askInput = z.strictObject({
  question: z.string().trim().min(1).max(2000),
  limit: z.int().min(1).max(20).default(5).describe('How many search hits ground the answer.'),
  workspace_ids: searchBody.shape.workspace_ids,
  collection_ids: searchBody.shape.collection_ids,
});

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
 * `ask` (SPEC §4.5): search, then an answer grounded in the hits, citing them by artifact id. The
 * synthesis is an invocation of the `answer` agent (a workflow); with no model configured, or when
 * the model fails, the answer is the top passages, and says so.
 */
export async function ask(ctx: OperationContext, input: z.infer<typeof askInput>, waitSeconds?: number) {
  const found = await runSearch(
    ctx,
    searchBody.parse({
      query: input.question,
      limit: input.limit,
      workspace_ids: input.workspace_ids,
      collection_ids: input.collection_ids,
    }),
  );
  const docs = new Map((await ctx.services.artifacts.getMany(found.results.map((r) => r.id))).map((d) => [d._id, d]));
  const passages = found.results.flatMap((r) => {
    const doc = docs.get(r.id);
    return doc ? [{ id: r.id, title: r.title, container: r.container, score: r.score, passage: bestPassage(doc, input.question) }] : [];
  });
  if (passages.length === 0)
    return {
      question: input.question,
      mode: 'none' as const,
      answer: null,
      note: 'Nothing you can read matches the question.',
      citations: [],
      passages,
    };
  if (!llmConfigured(ctx.services.config))
    return extractive(
      input.question,
      passages,
      'No language model is configured (LLM_MODEL): these are the top passages for the question, not a synthesized answer.',
    );

  const { invocationId, state } = await startAgent(ctx, agentByName('answer')!, {
    artifact_ids: passages.map((p) => p.id),
    input: input.question,
    params: {},
    mode: 'apply',
    ...(waitSeconds === undefined ? {} : { wait_seconds: waitSeconds }),
  });
  return askOutcome(input.question, passages, invocationId, state);
}

type Passage = { id: string; title: string; container: unknown; score: number; passage: string };

const extractive = (question: string, passages: Passage[], note: string) => ({
  question,
  mode: 'extractive' as const,
  answer: null,
  note,
  citations: passages.map((p) => p.id),
  passages,
});

/**
 * What `ask` answers once the answer agent's run is where it is: still running (with where to poll),
 * the model's answer, or the passages when the model did not answer. An MCP task composes its final
 * result with this too, from the question and passages it kept.
 */
export function askOutcome(question: string, passages: Passage[], invocationId: string, state: AgentRunState | null) {
  if (!state)
    return {
      question,
      mode: 'llm' as const,
      status: 'running',
      invocation_id: invocationId,
      poll: `/invocations/${invocationId}`,
      passages,
    };
  if (state.status !== 'completed' || !state.output)
    return extractive(
      question,
      passages,
      `The model did not answer (${state.error?.type ?? state.status}: ${state.error?.message ?? ''}); these are the top passages instead.`,
    );
  const { answer, citations } = JSON.parse(state.output) as { answer: string; citations: string[] };
  return { question, mode: 'llm' as const, answer, citations, invocation_id: invocationId, passages };
}
