import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Db } from 'mongodb';
import { answerNotes, chatPrompt, citationsOf, extractiveAnswer } from '../artifacts/chat-answer.js';
import { chatContent, chatLimits, type ChatContent, type ChatTurn } from '../artifacts/content-types/chat.js';
import { afterWrite, type AfterWriteSteps } from '../artifacts/after-write.js';
import { grantsOf } from '../identity/grants.js';
import { principalOf } from '../identity/principal.js';
import type { Config } from '../kernel/config/env.js';
import { createLogger } from '../kernel/logging/logger.js';
import { Llm, LlmError } from '../llm/client.js';
import { ChatAnswerStore } from '../store/chat-answers.js';
import { RevisionMismatch, type ArtifactDoc, type ArtifactStore } from '../store/artifacts.js';
import { ContainerStore } from '../store/containers.js';
import type { SearchChangeStore } from '../store/search-changes.js';
import { EventWorkflows } from '../workflow-clients/events.js';
import { IndexingWorkflows } from '../workflow-clients/indexing.js';
import { chatTurnFailure, type AppendInput, type ChatTurnInput, type ComposedAnswer } from '../workflows/contracts/chat-turn.js';

/** How often the answer so far is written for the stream route: often enough to read as typing, rarely enough for the store. */
const progressEveryMs = 100;
/** Attempts at the chat's next revision when other turns keep taking it first. */
const appendAttempts = 20;

interface ChatDeps {
  config: Config;
  db: Db;
  artifacts: ArtifactStore;
  changes: SearchChangeStore;
}

const refused = (message: string) => ApplicationFailure.nonRetryable(message, chatTurnFailure.refused);

/** The chat's content as stored (validated on every write; read again here, bounded by its schema). */
function contentOf(doc: ArtifactDoc): ChatContent {
  return chatContent.parse(JSON.parse(doc.content));
}

/** The answer so far, written for the stream route every progressEveryMs, one write at a time, the last one always. */
function progressWriter(answers: ChatAnswerStore, input: ChatTurnInput) {
  let latest = '';
  let written = '';
  let writing: Promise<void> | null = null;
  let timer: NodeJS.Timeout | undefined;
  const flush = async (): Promise<void> => {
    timer = undefined;
    if (writing) await writing;
    if (latest === written) return;
    const text = latest;
    writing = answers.progress(input, text).then(
      () => void (written = text),
      () => undefined, // the stream is a courtesy: the answer itself still goes into the chat
    );
    await writing;
    writing = null;
  };
  return {
    update(text: string) {
      latest = text;
      timer ??= setTimeout(() => void flush(), progressEveryMs);
    },
    async done(text: string) {
      clearTimeout(timer);
      latest = text;
      if (writing) await writing;
      await answers.progress(input, text, true).catch(() => undefined);
    },
  };
}

/** What follows the chat's write, as a worker has it: the search index and the workspace's event. */
function afterChatWrite(d: ChatDeps) {
  const client = Context.current().client;
  const events = new EventWorkflows(client, d.config.TEMPORAL_TASK_QUEUE, d.config.EVENTS_CONTINUE_AS_NEW_AFTER, {
    db: d.db,
    inline: d.config.EVENT_RELAY_INLINE,
    background: { onError: () => undefined }, // the sweeper relays what the fast path leaves
  });
  const indexing = new IndexingWorkflows(() => client, d.config.TEMPORAL_TASK_QUEUE);
  const steps: AfterWriteSteps = {
    index: (w) => Promise.all([d.changes.record(w.doc._id), indexing.start(w.doc)]),
    publish: (w) => events.publishWrite(w),
  };
  return (doc: ArtifactDoc) =>
    afterWrite(steps, { kind: 'artifact_updated', doc, actor: doc.provenance.updated_by, changed: ['content'] }, 'throw');
}

/** The turn's answer as the chat stores it. */
function assistantTurn(input: AppendInput, at: string): ChatTurn {
  const { turn, answer, fallback } = input;
  const base = { turn_id: turn.turnId, role: 'assistant' as const, at };
  if (answer) return { ...base, content: answer.content.slice(0, chatLimits.turnChars), citations: answer.citations, mode: 'llm' };
  if (turn.passages.length === 0) return { ...base, content: answerNotes.none, citations: [], mode: 'none', note: answerNotes.none };
  const note = fallback ? answerNotes.modelFailed(fallback).slice(0, 1000) : answerNotes.noModel;
  const plain = extractiveAnswer(turn.passages, note);
  return { ...base, content: plain.content.slice(0, chatLimits.turnChars), citations: plain.citations, mode: 'extractive', note };
}

export function createChatActivities(config: Config, db: Db, deps: { artifacts: ArtifactStore; changes: SearchChangeStore }) {
  const d: ChatDeps = { config, db, ...deps };
  const llm = new Llm(config);
  const answers = new ChatAnswerStore(db);
  const containers = new ContainerStore(db);
  const logger = createLogger(config.LOG_LEVEL);

  /** The chat, if the asker may still change it (a workspace draft, not archived, their U grant there); refused otherwise. */
  const writableBy = async (doc: ArtifactDoc | null, principal: ReturnType<typeof principalOf>): Promise<ArtifactDoc> => {
    if (!doc || doc.container_kind !== 'workspace') throw refused(`The chat is gone or no longer a workspace draft.`);
    if (doc.archived_at) throw refused(`Chat ${doc._id} was archived.`);
    const workspace = await containers.get('workspace', principal, doc.collection_id);
    if (!workspace || !grantsOf(workspace, principal.subject).has('U'))
      throw refused(`${principal.subject} may no longer change chat ${doc._id}.`);
    return doc;
  };
  /** A refused turn's answer so far is forgotten at once (its readers are told the turn failed). */
  const forgetting = (turnId: string) => async (err: unknown) => {
    if (err instanceof ApplicationFailure && err.nonRetryable) await answers.forget(turnId).catch(() => undefined);
    throw err;
  };

  return {
    /** The model's answer to the turn, streamed into the chat's answer record as it is written. */
    async composeChatAnswer(input: ChatTurnInput): Promise<ComposedAnswer> {
      const ctx = Context.current();
      const chat = await d.artifacts.current(input.chatId);
      // No model call for a turn that could not be written: the asker may have lost the chat meanwhile.
      const content = contentOf(await writableBy(chat, principalOf(input.principal)).catch(forgetting(input.turnId)));
      const progress = progressWriter(answers, input);
      const beat = setInterval(() => ctx.heartbeat(), 5000);
      try {
        const { text } = await llm.streamText({
          messages: chatPrompt(content.instructions, content.turns, input.passages, input.message),
          maxChars: chatLimits.turnChars,
          onText: (t) => progress.update(t),
          signal: ctx.cancellationSignal,
        });
        await progress.done(text);
        return { content: text, citations: citationsOf(text, input.passages) };
      } catch (err) {
        if (!(err instanceof LlmError)) throw err;
        throw ApplicationFailure.create({ type: `llm-${err.kind.replace('_', '-')}`, message: err.message, nonRetryable: !err.retryable });
      } finally {
        clearInterval(beat);
      }
    },

    /**
     * Appends the question and its answer as the chat's next revision. Another turn may take that
     * revision first: the chat is read again and the pair appended to it (no turn is lost). A retry
     * that finds the turn already there answers it again.
     */
    async appendChatTurn(input: AppendInput): Promise<{ revision: number; turns: ChatTurn[] }> {
      const { turn } = input;
      const principal = principalOf(turn.principal);
      const after = afterChatWrite(d);
      const at = new Date().toISOString();
      for (let attempt = 1; ; attempt++) {
        const doc = await writableBy(await d.artifacts.current(turn.chatId), principal).catch(forgetting(turn.turnId));
        const content = contentOf(doc);
        const mine = content.turns.filter((t) => t.turn_id === turn.turnId);
        if (mine.length) return { revision: doc.revision, turns: mine };
        if (content.turns.length + 2 > chatLimits.turns)
          throw ApplicationFailure.nonRetryable(
            `Chat ${turn.chatId} holds ${chatLimits.turns} turns, as many as a chat may.`,
            chatTurnFailure.full,
          );
        const pair: ChatTurn[] = [
          { turn_id: turn.turnId, role: 'user', content: turn.message, by: principal.subject, at: turn.askedAt },
          assistantTurn(input, at),
        ];
        const next = chatContent.parse({ ...content, turns: [...content.turns, ...pair] });
        let written: ArtifactDoc | null;
        try {
          written = await d.artifacts.update(principal, turn.chatId, { content: JSON.stringify(next) }, turn.source, doc.revision);
        } catch (err) {
          if (err instanceof RevisionMismatch && err.current !== null && attempt < appendAttempts) continue;
          throw err;
        }
        if (!written) throw refused(`Chat ${turn.chatId} is gone.`);
        await after(written).catch((err: unknown) =>
          logger.warn({ err, artifact_id: written._id }, 'chat turn written; index or event not updated'),
        );
        await answers.forget(turn.turnId).catch(() => undefined);
        return { revision: written.revision, turns: pair };
      }
    },
  };
}
