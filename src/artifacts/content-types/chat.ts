import { z } from 'zod';
import { text, uuid } from '../../kernel/json/schemas.js';

/** Bounds of a chat (docs/decisions.md, "Chat"): a conversation is kept whole in one artifact, so it is finite. */
export const chatLimits = {
  /** Turns a chat holds (user and assistant turns counted apart): 100 questions and their answers. */
  turns: 200,
  /** A question, as a person or client sends it. */
  message: 4000,
  /** A turn's stored text: an answer is cut here while it streams. */
  turnChars: 12_000,
  instructions: 4000,
  citations: 20,
  sources: 20,
} as const;

export const chatRoles = ['user', 'assistant'] as const;
/** How an assistant turn was made: the model's synthesis, the top passages (no model, or it failed), or nothing matched. */
export const chatModes = ['llm', 'extractive', 'none'] as const;

export const chatCitation = z.strictObject({
  artifact_id: uuid(),
  title: text(z.string().max(500)),
  /** The marker the answer cites it by (`[1]`): the passage's number as the model saw it. */
  ref: z.int().min(1).max(100).optional(),
});

export const chatTurn = z.strictObject({
  /** The exchange the turn belongs to: a question and its answer share it (and a retried request finds it). */
  turn_id: uuid(),
  role: z.enum(chatRoles),
  content: text(z.string().max(chatLimits.turnChars)),
  citations: z.array(chatCitation).max(chatLimits.citations).optional(),
  mode: z.enum(chatModes).optional(),
  /** Why an answer is passages rather than a synthesis (mode extractive or none). */
  note: text(z.string().max(1000)).optional(),
  /** Who asked (a user turn): the principal's subject. */
  by: text(z.string().max(200)).optional(),
  at: z.iso.datetime({ offset: true }),
});
export type ChatTurn = z.infer<typeof chatTurn>;

/** `content` of an `application/vnd.platform.chat+json` artifact (SPEC §2.2, issue #36). */
export const chatContent = z.strictObject({
  /** Extra guidance for the model, added to its instructions for every answer of this chat. */
  instructions: text(z.string().max(chatLimits.instructions)).optional(),
  /** What the chat searches; absent: everything the person adding a turn may search. */
  sources: z
    .strictObject({
      workspace_ids: z.array(uuid()).min(1).max(chatLimits.sources).optional(),
      collection_ids: z.array(uuid()).min(1).max(chatLimits.sources).optional(),
    })
    .optional(),
  turns: z.array(chatTurn).max(chatLimits.turns).default([]),
});
export type ChatContent = z.infer<typeof chatContent>;
