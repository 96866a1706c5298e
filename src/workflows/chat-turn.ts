import { ActivityFailure, ApplicationFailure, proxyActivities, proxyLocalActivities, setHandler } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import { chatTurnFailure, chatTurnStateQuery, type ChatTurnInput, type ChatTurnState, type ComposedAnswer } from './contracts/chat-turn.js';

const retry = { initialInterval: '1 second', maximumInterval: '10 seconds', backoffCoefficient: 2 };

// The model call is a regular activity with its own timeout and heartbeat; writing the chat is short
// local work against the store.
const model = proxyActivities<Activities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '2 minutes',
  retry: { ...retry, maximumAttempts: 2 },
});
const store = proxyLocalActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { ...retry, maximumAttempts: 5, nonRetryableErrorTypes: Object.values(chatTurnFailure) },
});

function failureOf(err: unknown): { type: string; message: string } {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (cause instanceof ApplicationFailure) return { type: cause.type ?? 'error', message: cause.message };
  return { type: 'error', message: cause instanceof Error ? cause.message : String(cause) };
}

/**
 * One turn of a chat (id `chat-turn-<turnId>`, issue #36): the model answers the question from the
 * passages the API found (streaming its text for the console), or, without a model or when it fails,
 * the passages are the answer; then the question and its answer become the chat's next revision.
 */
export async function chatTurn(input: ChatTurnInput): Promise<ChatTurnState> {
  const state: ChatTurnState = {
    chat_id: input.chatId,
    turn_id: input.turnId,
    question: input.message,
    asked_by: input.principal.subject,
    status: 'answering',
  };
  setHandler(chatTurnStateQuery, () => state);

  let answer: ComposedAnswer | null = null;
  let fallback: string | undefined;
  if (input.llm && input.passages.length > 0) {
    try {
      answer = await model.composeChatAnswer(input);
    } catch (err) {
      const why = failureOf(err);
      fallback = `${why.type}: ${why.message}`;
    }
  }
  state.status = 'writing';
  try {
    const written = await store.appendChatTurn({ turn: input, answer, ...(fallback ? { fallback } : {}) });
    state.revision = written.revision;
    state.turns = written.turns;
    state.status = 'completed';
  } catch (err) {
    state.error = failureOf(err);
    state.status = 'failed';
  }
  return state;
}
