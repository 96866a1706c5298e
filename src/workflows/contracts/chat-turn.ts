import { defineQuery } from '@temporalio/workflow';
import type { PrincipalSnapshot } from '../../identity/principal.js';
import type { Provenance } from '../../store/artifacts.js';
import type { GroundingPassage } from '../../artifacts/chat-answer.js';
import type { ChatTurn } from '../../artifacts/content-types/chat.js';

/** The contract of `chatTurn` (workflows/chat-turn.ts). */
export const chatTurnType = 'chatTurn';
export type ChatTurnRun = (input: ChatTurnInput) => Promise<ChatTurnState>;

/** The workflow id of a chat turn: a retried request (same turn id) attaches to the run there is. */
export const chatTurnWorkflowId = (turnId: string) => `chat-turn-${turnId}`;

/** One question added to a chat: who asked, what, and the search hits the API found for them then. */
export interface ChatTurnInput {
  chatId: string;
  turnId: string;
  message: string;
  askedAt: string;
  principal: PrincipalSnapshot;
  /** The request that added the turn, as the chat's revision records it. */
  source: Provenance['source'];
  passages: GroundingPassage[];
  /** A model is configured: the answer is synthesized (else extractive). */
  llm: boolean;
}

/** What the model answered: its text and the passages it cited. */
export interface ComposedAnswer {
  content: string;
  citations: { artifact_id: string; title: string; ref: number }[];
}

/** What the turn's activity writes: the model's answer, or (null) the passages, with why. */
export interface AppendInput {
  turn: ChatTurnInput;
  answer: ComposedAnswer | null;
  /** Why the answer is passages (no model, or the model failed). */
  fallback?: string;
}

export interface ChatTurnState {
  chat_id: string;
  turn_id: string;
  /** The question, and who asked it (a retried request is told from a reused key by them). */
  question: string;
  asked_by: string;
  /** answering: the model writes (or the passages are gathered); writing: the turns go into the chat. */
  status: 'answering' | 'writing' | 'completed' | 'failed';
  /** The chat's revision holding the turn. */
  revision?: number;
  /** The question and its answer, as the chat holds them. */
  turns?: ChatTurn[];
  error?: { type: string; message: string };
}

export const chatTurnStateQuery = defineQuery<ChatTurnState>('chatTurnState');

/** The failure types of a turn: the chat is gone or no longer writable, or it is full. */
export const chatTurnFailure = { refused: 'ChatTurnRefused', full: 'ChatFull' } as const;
