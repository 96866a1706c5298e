import { z } from 'zod';
import { chatTurn } from '../artifacts/content-types/chat.js';
import type { ChatTurnState } from '../workflows/contracts/chat-turn.js';

const turnLinks = { poll: z.string(), stream: z.string() };

/** A chat turn as REST answers it: running (with the answer so far, when asked), or ended. */
export const chatTurnStateSchema = z
  .object({
    chat_id: z.string(),
    turn_id: z.string(),
    question: z.string(),
    status: z.enum(['answering', 'writing', 'completed', 'failed']),
    revision: z.number().optional().describe("The chat's revision that holds the turn."),
    turns: z.array(chatTurn).optional().describe('The question and its answer, as the chat holds them.'),
    partial: z.string().optional().describe('The answer so far, while the model writes it.'),
    error: z.object({ type: z.string(), message: z.string() }).optional(),
    ...turnLinks,
  })
  .meta({ id: 'ChatTurn' });

export function presentTurn(
  state: ChatTurnState,
  links: { poll: string; stream: string },
  partial?: string,
): z.infer<typeof chatTurnStateSchema> {
  return {
    chat_id: state.chat_id,
    turn_id: state.turn_id,
    question: state.question,
    status: state.status,
    ...(state.revision !== undefined ? { revision: state.revision } : {}),
    ...(state.turns ? { turns: state.turns } : {}),
    ...(partial !== undefined ? { partial } : {}),
    ...(state.error ? { error: state.error } : {}),
    ...links,
  };
}

/** GET /artifacts/{id}/turns: the chat's revision and the answers being written now. */
export const chatActivitySchema = z
  .object({
    chat_id: z.string(),
    revision: z.number().describe("The chat's current revision: a page showing the chat reloads it when this moves."),
    running: z
      .array(z.object({ turn_id: z.string(), question: z.string(), ...turnLinks }))
      .describe('Answers the model is writing now (the newest 10), each with where to follow it.'),
  })
  .meta({ id: 'ChatActivity' });
