// The chat content type's routes (issue #36): add a turn, read it, and follow its answer as the model
// writes it (Server-Sent Events, read with fetch: EventSource cannot send the bearer token).
import type { Server } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { Problem } from '../../kernel/errors/problem.js';
import { tooManyStreams } from '../sse.js';
import { uuid } from '../../kernel/json/schemas.js';
import { addTurn, chatActivity, getTurn, turnBody, turnLinks, visibleChat } from '../../operations/chats.js';
import type { OperationContext } from '../../operations/services.js';
import { chatActivitySchema, chatTurnStateSchema, presentTurn } from '../../presenters/chats.js';
import { isStorageUnavailable, withDeadline } from '../../store/deadline.js';
import type { ChatTurnState } from '../../workflows/contracts/chat-turn.js';
import { artifactId } from '../artifact-access.js';
import type { AuthedContext } from '../context.js';
import { byStatus } from '../openapi/responses.js';
import { stillAuthenticated } from '../middleware/authenticate.js';
import { route, type RouteDef } from '../route.js';
import { eventStreams } from './event-stream.js';
import { idempotencyKeyOf, parse } from '../validate.js';

export const turnStreamTiming = {
  /** Between two reads of the answer so far (one small record, read by its id). */
  pollMs: 200,
  /**
   * Between two reads of the turn's run (has it ended?) while the answer is still being written: the
   * end shows first in the answer's record (marked done, or gone once the chat holds it), which is when
   * the run is read at once; this is the fallback (a run that failed, or wrote no answer record).
   */
  stateMs: 5000,
  /** Between two reads of the run once the answer's record says the answer is done or is gone. */
  endingMs: 1000,
  /** A stream ends after this long even if the turn has not: the client reconnects or polls. */
  lifetimeMs: 10 * 60_000,
  /** The credentials and the chat are looked at again this often: a revoked key or session, or a chat no longer readable, ends the stream. */
  accessCheckMs: 30_000,
  /** Deadline of the reads a stream makes (the run's state has its own, 10 s). */
  deadlineMs: 5000,
};

const turnParams = z.object({ id: uuid(), turn_id: uuid('must be a turn id (a UUID)') });
const turnOf = (ctx: AuthedContext) => {
  artifactId(ctx);
  return parse(turnParams, ctx.params, 'path');
};

const settled = (status: string) => status === 'completed' || status === 'failed';

export const chatRoutes: RouteDef[] = [
  route({
    method: 'post',
    path: '/artifacts/:id/turns',
    access: 'artifact:write',
    doc: {
      summary: 'Add a turn to a chat: the question, and an answer grounded in search with citations',
      description:
        "Needs artifact:write on the chat (a workspace draft) and search:read and artifact:read for the answer. Answers 200 with the question and its answer once the chat's new revision holds them, or 202 with where to follow the turn (`poll`, and `stream` for the answer as it is written) when it takes longer than `wait_seconds`. Send an Idempotency-Key to retry safely: the same key answers the same turn.",
      errors: [409],
      response: byStatus({ 200: chatTurnStateSchema, 202: chatTurnStateSchema }),
      example: { message: 'How often is the gearbox oil changed?' },
    },
    body: 'json',
    request: turnBody,
    handler: async (ctx, _query, body) => {
      const chatId = artifactId(ctx);
      const input = body();
      const { state, turnId, question } = await addTurn(ctx, chatId, input, idempotencyKeyOf(ctx));
      const links = turnLinks(chatId, turnId);
      const shown = state ?? {
        chat_id: chatId,
        turn_id: turnId,
        question,
        asked_by: ctx.state.principal.subject,
        status: 'answering' as const,
      };
      ctx.status = settled(shown.status) ? 200 : 202;
      if (ctx.status === 202) ctx.set('Location', links.poll);
      ctx.body = presentTurn(shown, links);
    },
  }),
  route({
    method: 'get',
    path: '/artifacts/:id/turns',
    access: 'artifact:read',
    doc: {
      summary: "A chat's current revision and the answers being written now (what a page showing the chat polls)",
      response: chatActivitySchema,
    },
    handler: async (ctx) => {
      ctx.body = await chatActivity(ctx, artifactId(ctx));
    },
  }),
  route({
    method: 'get',
    path: '/artifacts/:id/turns/:turn_id',
    access: 'artifact:read',
    doc: {
      summary: 'A chat turn: running (with the answer so far) or ended',
      description:
        "`status` is `answering` (`partial` holds the answer so far), `writing` (the turn goes into the chat), `completed` (`turns` holds the question and its answer as the chat does, `revision` the chat's revision holding them) or `failed` (`error` says why: the asker may no longer change the chat, it was archived, or it is full). A turn of another chat is not found here (404).",
      response: chatTurnStateSchema,
    },
    handler: async (ctx) => {
      const { id, turn_id } = turnOf(ctx);
      const { state, partial } = await getTurn(ctx, id, turn_id);
      ctx.body = presentTurn(state, turnLinks(id, turn_id), partial);
    },
  }),
  route({
    method: 'get',
    path: '/artifacts/:id/turns/:turn_id/stream',
    access: 'artifact:read',
    doc: {
      summary: "A chat turn's answer as the model writes it (Server-Sent Events)",
      description:
        '`delta` events carry `{offset, text}`: the answer from `offset` on (an offset before the text shown means the answer started again). A `turn` event carries the ended turn, as GET /artifacts/{id}/turns/{turn_id} answers it; the stream then ends. It also ends after 10 minutes (poll the turn, or open it again), when the credentials it was opened with no longer hold or the chat is no longer readable (looked at every 30 s), and it counts against the per-person cap of open event streams (429).',
      produces: 'text/event-stream',
      errors: [429],
    },
    handler: async (ctx) => {
      const { id, turn_id } = turnOf(ctx);
      const first = await getTurn(ctx, id, turn_id);
      // Counted with the person's other event streams (the replica's cap too); shutdown ends it.
      const slot = eventStreams(ctx.services).acquire(ctx.state.principal.subject);
      if ('full' in slot) throw tooManyStreams(slot.full);
      ctx.respond = false;
      try {
        await follow(ctx, id, turn_id, first.state, slot.signal);
      } finally {
        slot.release();
      }
    },
  }),
];

/** The stream's reader as they are now: their credentials still hold and they may still read the chat. */
async function stillReads(ctx: OperationContext & AuthedContext, chatId: string): Promise<boolean> {
  const t = turnStreamTiming;
  try {
    const principal = await withDeadline('turn stream access', stillAuthenticated(ctx), t.deadlineMs);
    if (!principal) return false;
    ctx.state.principal = principal;
    await withDeadline('turn stream access', visibleChat(ctx, chatId), t.deadlineMs);
    return true;
  } catch (err) {
    if (err instanceof Problem) return false; // the chat is gone, or no longer theirs to read
    if (isStorageUnavailable(err)) return true; // not known now: looked at again at the next check
    throw err;
  }
}

/**
 * Passes on the answer as it grows, until the turn ends, the client leaves, the server stops, the
 * reader loses access or the stream's lifetime ends.
 */
async function follow(ctx: OperationContext & AuthedContext, chatId: string, turnId: string, first: ChatTurnState, stopAll: AbortSignal) {
  const { res, services } = ctx;
  const t = turnStreamTiming;
  const server = (ctx.req.socket as { server?: Server }).server;
  const stopper = new AbortController();
  const stop = () => stopper.abort();
  res.once('close', stop); // the client went away
  stopAll.addEventListener('abort', stop, { once: true });
  // A client that left while the turn was first read closed before 'close' was listened for.
  if (res.destroyed || ctx.req.socket.destroyed) stop();
  // A client that does not read is not waited for: its stream ends rather than holding our buffers.
  const send = (event: string, data: unknown) => {
    if (!res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`) && res.writableLength > 1024 * 1024) stop();
  };
  const links = turnLinks(chatId, turnId);
  let sent = '';
  let state = first;
  let stateAt = Date.now();
  let accessAt = Date.now();
  const end = Date.now() + t.lifetimeMs;
  try {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-accel-buffering': 'no',
      connection: 'close',
    });
    res.write(': answer follows\n\n');
    while (!stopper.signal.aborted && server?.listening !== false && Date.now() < end) {
      if (Date.now() - accessAt >= t.accessCheckMs) {
        accessAt = Date.now();
        if (!(await stillReads(ctx, chatId))) break;
      }
      // The answer so far: undefined when storage did not answer (the next poll tries again), null when there is none.
      const record = settled(state.status)
        ? undefined
        : await withDeadline('turn stream read', services.chatAnswers.get(turnId), t.deadlineMs).catch(() => undefined);
      // Once the turn has ended its answer is the chat's (the record of the answer so far is gone).
      const text = settled(state.status) ? (state.turns?.find((x) => x.role === 'assistant')?.content ?? null) : (record?.text ?? null);
      if (text !== null && text !== sent) {
        // The common prefix is kept; the rest is sent again (a retried model call starts the answer over).
        let offset = 0;
        while (offset < sent.length && offset < text.length && sent[offset] === text[offset]) offset++;
        send('delta', { offset, text: text.slice(offset) });
        sent = text;
      }
      if (settled(state.status)) {
        send('turn', presentTurn(state, links));
        return;
      }
      // While the answer grows the run is rarely asked (a query reaches a worker); once it is done or gone, soon.
      const ending = record === null || record?.done === true;
      if (Date.now() - stateAt >= (ending ? t.endingMs : t.stateMs)) {
        state = (await services.chatWorkflows.state(turnId).catch(() => null)) ?? state;
        stateAt = Date.now();
        continue;
      }
      await sleep(t.pollMs, undefined, { signal: stopper.signal }).catch(() => undefined);
    }
  } catch (err) {
    services.logger.error({ request_id: ctx.state.requestId, turn_id: turnId, err }, 'chat turn stream failed');
    res.destroy();
  } finally {
    res.off('close', stop);
    stopAll.removeEventListener('abort', stop);
    if (!res.writableEnded && !res.destroyed) res.end();
  }
}
