import { createHash, randomUUID } from 'node:crypto';
import { z } from 'zod';
import { baseType, chatType } from '../artifacts/content-types/index.js';
import { chatContent, chatLimits, type ChatContent } from '../artifacts/content-types/chat.js';
import { snapshotOf } from '../identity/principal.js';
import { problems } from '../kernel/errors/problem.js';
import { text } from '../kernel/json/schemas.js';
import { llmConfigured } from '../llm/client.js';
import type { ArtifactDoc } from '../store/artifacts.js';
import type { ContainerDoc } from '../store/containers.js';
import type { ChatTurnState } from '../workflows/contracts/chat-turn.js';
import { apiSource, editableDraft, visibleArtifact } from './artifacts.js';
import { groundingPassages, type Passage } from './grounding.js';
import type { OperationContext } from './services.js';

/** The body of `POST /artifacts/{id}/turns`. */
export const turnBody = z.strictObject({
  message: text(z.string().trim().min(1, 'must not be empty').max(chatLimits.message)),
  limit: z.int().min(1).max(10).default(5).describe('How many search hits ground the answer.'),
  wait_seconds: z
    .number()
    .min(0)
    .max(60)
    .optional()
    .describe('How long to wait for the answer before answering 202 with where to follow it (default MCP_INVOKE_WAIT_SECONDS).'),
});
export type TurnBody = z.infer<typeof turnBody>;

/** Where a turn is followed: its state, and its answer as it streams. */
export const turnLinks = (chatId: string, turnId: string) => ({
  poll: `/artifacts/${chatId}/turns/${turnId}`,
  stream: `/artifacts/${chatId}/turns/${turnId}/stream`,
});

const isChat = (doc: ArtifactDoc) => baseType(doc.content_type) === chatType;

/** A chat the caller may read: 404 for anything else (invisible and missing look the same, as for any artifact). */
export async function visibleChat(ctx: OperationContext, id: string): Promise<{ doc: ArtifactDoc; content: ChatContent }> {
  const { doc } = await visibleArtifact(ctx, id);
  if (!isChat(doc)) throw problems.notFound('chat', id);
  return { doc, content: chatContent.parse(JSON.parse(doc.content)) };
}

/**
 * A turn's id: derived from who sends it, the chat and their Idempotency-Key (so a retried request
 * finds the turn it started), else a new one. Shaped as a UUID, as the chat's schema wants.
 */
function turnIdFor(subject: string, chatId: string, key: string | undefined): string {
  if (!key) return randomUUID();
  const h = createHash('sha256').update(`${subject}\n${chatId}\n${key}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

type Scope = { workspace_ids?: string[] | undefined; collection_ids?: string[] | undefined };

/** Containers a shared chat's grounding looks at, at most (the caller's searchable ones, each checked). */
const sharedScopeBound = 200;

/**
 * Where a turn's answer may come from. The answer is stored in the chat, which everyone who can read
 * the chat's workspace reads: in a shared workspace, only containers each of them can read as well
 * ground it (an answer never shows a reader what they could not read themselves). In a workspace only
 * the caller reads, the scope is as asked. Null: nowhere.
 */
async function sharedScope(ctx: OperationContext, chatWorkspace: ContainerDoc, asked: Scope): Promise<Scope | null> {
  const { principal } = ctx.state;
  const audience = [...new Set([chatWorkspace.owner_id, ...(chatWorkspace.readers ?? [])])].filter((p) => p !== principal.subject);
  if (audience.length === 0) return asked;
  const readableByAll = (doc: ContainerDoc) => audience.every((p) => doc.owner_id === p || (doc.readers ?? []).includes(p));
  const pick = async (kind: 'workspace' | 'collection', wanted: string[] | undefined) => {
    if (asked.workspace_ids || asked.collection_ids) if (!wanted) return [];
    const ids = (wanted ?? (await ctx.services.containers.grantedIds(kind, principal, 'S'))).slice(0, sharedScopeBound);
    const docs = await Promise.all(ids.map((id) => ctx.services.containers.get(kind, principal, id)));
    return docs.filter((d): d is ContainerDoc => d !== null && readableByAll(d)).map((d) => d._id);
  };
  const [workspaces, collections] = await Promise.all([pick('workspace', asked.workspace_ids), pick('collection', asked.collection_ids)]);
  if (!workspaces.length && !collections.length) return null;
  return {
    ...(workspaces.length ? { workspace_ids: workspaces } : {}),
    ...(collections.length ? { collection_ids: collections } : {}),
  };
}

export interface StartedTurn {
  state: ChatTurnState | null;
  chatId: string;
  turnId: string;
  question: string;
  passages: Passage[];
}

/**
 * Adds a turn to a chat (issue #36): the caller must be able to change the chat (a workspace draft,
 * artifact:write and the U grant) and to search and read what grounds the answer. The search runs
 * here, as the caller; the turn's workflow answers from its hits and writes the chat's next revision.
 * Waits up to `wait_seconds` for the turn to end.
 */
export async function addTurn(
  ctx: OperationContext,
  chatId: string,
  body: TurnBody,
  idempotencyKey?: string,
  scope?: Scope,
): Promise<StartedTurn> {
  const { principal } = ctx.state;
  for (const needed of ['search:read', 'artifact:read'] as const)
    if (!principal.scopes.allows(needed)) throw problems.insufficientScope(needed);
  const { doc } = await visibleArtifact(ctx, chatId);
  if (!isChat(doc)) throw problems.notFound('chat', chatId);
  const { container } = await editableDraft(ctx, chatId); // a collection's chat is immutable (409), and the caller needs artifact:write and U
  const content = chatContent.parse(JSON.parse(doc.content));
  const turnId = turnIdFor(principal.subject, chatId, idempotencyKey);
  const { config, chatWorkflows } = ctx.services;
  const waitMs = (body.wait_seconds ?? config.MCP_INVOKE_WAIT_SECONDS) * 1000;

  const earlier = idempotencyKey ? await chatWorkflows.state(turnId) : null;
  if (earlier && earlier.question !== body.message)
    throw problems.conflict(
      'idempotency-key-reused',
      `This Idempotency-Key already added another question to chat ${chatId}; send a new key for a new question.`,
    );
  if (!earlier && content.turns.length + 2 > chatLimits.turns)
    throw problems.conflict(
      'chat-full',
      `Chat ${chatId} holds ${chatLimits.turns} turns, as many as a chat may: start a new chat to go on.`,
    );

  // A follow-up ("and the filter?") leans on the question before it: both are searched together.
  const previous = content.turns.filter((t) => t.role === 'user').at(-1)?.content;
  const query = (previous ? `${previous}\n${body.message}` : body.message).slice(-1000);
  // A retried request answers the turn it started: no search again.
  const where = earlier ? null : await sharedScope(ctx, container, scope ?? content.sources ?? {});
  // The chat itself and other chats are conversations, not knowledge: they never ground an answer.
  const passages = where ? (await groundingPassages(ctx, query, body.limit, where, (d) => !isChat(d))).filter((p) => p.id !== chatId) : [];
  if (!earlier)
    await chatWorkflows.start({
      chatId,
      turnId,
      message: body.message,
      askedAt: new Date().toISOString(),
      principal: snapshotOf(principal),
      source: apiSource(ctx),
      passages: passages.map(({ id, title, passage }) => ({ id, title, passage })),
      llm: llmConfigured(config),
    });
  const state =
    earlier && earlier.status !== 'answering' && earlier.status !== 'writing' ? earlier : await chatWorkflows.settled(turnId, waitMs);
  // Two requests under one key at once both found no run; the second attached to the first's: its question must be the same.
  if (idempotencyKey && state && state.question !== body.message)
    throw problems.conflict(
      'idempotency-key-reused',
      `This Idempotency-Key already added another question to chat ${chatId}; send a new key for a new question.`,
    );
  return { state, chatId, turnId, question: body.message, passages };
}

/** A turn of a chat the caller may read: the run's state, the answer so far while it is written, or the turn as the chat holds it. */
export async function getTurn(ctx: OperationContext, chatId: string, turnId: string) {
  const { content } = await visibleChat(ctx, chatId);
  const state = await ctx.services.chatWorkflows.state(turnId);
  if (state && state.chat_id === chatId) {
    const partial = state.status === 'answering' ? ((await ctx.services.chatAnswers.get(turnId))?.text ?? '') : undefined;
    return { state, partial };
  }
  // The run is gone (past Temporal's retention): the chat still holds the turn.
  const turns = content.turns.filter((t) => t.turn_id === turnId);
  if (!turns.length) throw problems.notFound('turn', turnId);
  const user = turns.find((t) => t.role === 'user');
  const held: ChatTurnState = {
    chat_id: chatId,
    turn_id: turnId,
    question: user?.content ?? '',
    asked_by: user?.by ?? '',
    status: 'completed',
    turns,
  };
  return { state: held, partial: undefined };
}

/**
 * A chat as a page showing it follows it: its revision (another turn, or an edit, makes a new one) and
 * the answers being written now, each with where to follow it. Read by whoever may read the chat.
 */
export async function chatActivity(ctx: OperationContext, chatId: string) {
  // Polled by every open page: the chat's record is read, its conversation is not parsed.
  const { doc } = await visibleArtifact(ctx, chatId);
  if (!isChat(doc)) throw problems.notFound('chat', chatId);
  const running = await ctx.services.chatAnswers.running(chatId);
  return {
    chat_id: chatId,
    revision: doc.revision,
    running: running.map((r) => ({ turn_id: r._id, question: r.question ?? '', ...turnLinks(chatId, r._id) })),
  };
}

/**
 * `ask` with a chat id: the question becomes the chat's next turn (the same workflow as REST), and the
 * answer is given as `ask` gives one, with the chat, the turn and the revision that holds it. Waits
 * as long as an invocation may (a chat turn is not an MCP task: a client follows `poll` instead).
 */
export async function askInChat(
  ctx: OperationContext,
  chatId: string,
  input: { question: string; limit: number; workspace_ids?: string[] | undefined; collection_ids?: string[] | undefined },
  _waitSeconds?: number,
) {
  if (!ctx.state.principal.scopes.allows('artifact:write')) throw problems.insufficientScope('artifact:write');
  const scope =
    input.workspace_ids || input.collection_ids ? { workspace_ids: input.workspace_ids, collection_ids: input.collection_ids } : undefined;
  const started = await addTurn(ctx, chatId, { message: input.question, limit: Math.min(input.limit, 10) }, undefined, scope);
  const { state, turnId, passages } = started;
  const base = { question: input.question, chat_id: chatId, turn_id: turnId, passages };
  if (!state || state.status === 'answering' || state.status === 'writing')
    return {
      ...base,
      mode: llmConfigured(ctx.services.config) && passages.length ? ('llm' as const) : ('extractive' as const),
      status: 'running' as const,
      poll: turnLinks(chatId, turnId).poll,
    };
  if (state.status === 'failed')
    throw problems.conflict('chat-turn-failed', `The turn was not added: ${state.error?.message ?? 'it failed'}.`);
  const answer = state.turns?.find((t) => t.role === 'assistant');
  return {
    ...base,
    mode: answer?.mode ?? ('none' as const),
    answer: answer?.content ?? null,
    ...(answer?.note ? { note: answer.note } : {}),
    citations: (answer?.citations ?? []).map((c) => c.artifact_id),
    ...(state.revision !== undefined ? { revision: state.revision } : {}),
  };
}
