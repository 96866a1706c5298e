import { z } from 'zod';
import { agentByName } from '../invocations/agents/registry.js';
import { llmConfigured } from '../llm/client.js';
import type { OperationContext } from './services.js';
import { startAgent } from './agent-runs.js';
import type { AgentRunState } from '../workflows/contracts/agent-run.js';
import { searchBody } from './search.js';
import { uuid } from '../kernel/json/schemas.js';
import { answerNotes, groundingPassages, type Passage } from './grounding.js';
import { askInChat } from './chats.js';

export { bestPassage } from './grounding.js';

/** The input of the `ask` tool (docs/decisions.md). */
export const askInput = z.strictObject({
  question: z.string().trim().min(1).max(2000),
  limit: z.int().min(1).max(20).default(5).describe('How many search hits ground the answer.'),
  workspace_ids: searchBody.shape.workspace_ids,
  collection_ids: searchBody.shape.collection_ids,
  chat_id: uuid()
    .optional()
    .describe(
      "A chat artifact (application/vnd.platform.chat+json) in a workspace: the question and its answer become the chat's next turn (needs artifact:write), and the answer takes the chat's earlier turns into account.",
    ),
});

/**
 * `ask` (SPEC §4.5): search, then an answer grounded in the hits, citing them by artifact id. The
 * synthesis is an invocation of the `answer` agent (a workflow); with no model configured, or when
 * the model fails, the answer is the top passages, and says so.
 */
export async function ask(ctx: OperationContext, input: z.infer<typeof askInput>, waitSeconds?: number) {
  if (input.chat_id) return askInChat(ctx, input.chat_id, input, waitSeconds);
  const passages = await groundingPassages(ctx, input.question, input.limit, input);
  if (passages.length === 0)
    return {
      question: input.question,
      mode: 'none' as const,
      answer: null,
      note: answerNotes.none,
      citations: [],
      passages,
    };
  if (!llmConfigured(ctx.services.config)) return extractive(input.question, passages, answerNotes.noModel);

  const { invocationId, state } = await startAgent(ctx, agentByName('answer')!, {
    artifact_ids: passages.map((p) => p.id),
    input: input.question,
    params: {},
    mode: 'apply',
    ...(waitSeconds === undefined ? {} : { wait_seconds: waitSeconds }),
  });
  return askOutcome(input.question, passages, invocationId, state);
}

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
    return extractive(question, passages, answerNotes.modelFailed(`${state.error?.type ?? state.status}: ${state.error?.message ?? ''}`));
  const { answer, citations } = JSON.parse(state.output) as { answer: string; citations: string[] };
  return { question, mode: 'llm' as const, answer, citations, invocation_id: invocationId, passages };
}
