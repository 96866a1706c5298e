// The chat content type's routes (issue #36): add a turn, read it, and follow its answer as the model
// writes it (Server-Sent Events, read with fetch: EventSource cannot send the bearer token).
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { Problem } from '../../kernel/errors/problem.js';
import { uuid } from '../../kernel/json/schemas.js';
import { addTurn, getTurn, turnBody, turnLinks } from '../../operations/chats.js';
import type { OperationContext } from '../../operations/services.js';
import { chatTurnStateSchema, presentTurn } from '../../presenters/chats.js';
import { artifactId } from '../artifact-access.js';
import type { AuthedContext } from '../context.js';
import { byStatus } from '../openapi/responses.js';
import { route, type RouteDef } from '../route.js';
import { idempotencyKeyOf, parse } from '../validate.js';

export const turnStreamTiming = {
  /** Between two reads of the answer so far. */
  pollMs: 150,
  /** Between two reads of the turn's run (has it ended?). */
  stateMs: 1000,
  /** A stream ends after this long even if the turn has not: the client reconnects or polls. */
  lifetimeMs: 10 * 60_000,
};
/** Turn streams one person may hold open on this replica at once. */
const streamsPerPerson = 8;
const openStreams = new Map<string, number>();

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
    path: '/artifacts/:id/turns/:turn_id',
    access: 'artifact:read',
    doc: { summary: 'A chat turn: running (with the answer so far) or ended', response: chatTurnStateSchema },
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
        '`delta` events carry `{offset, text}`: the answer from `offset` on (an offset before the text shown means the answer started again). A `turn` event carries the ended turn, as GET /artifacts/{id}/turns/{turn_id} answers it; the stream then ends.',
      produces: 'text/event-stream',
      errors: [429],
    },
    handler: async (ctx) => {
      const { id, turn_id } = turnOf(ctx);
      const first = await getTurn(ctx, id, turn_id);
      const who = ctx.state.principal.subject;
      const held = openStreams.get(who) ?? 0;
      if (held >= streamsPerPerson)
        throw new Problem(429, 'too-many-requests', 'Too many open turn streams', 'Close a turn stream first.', {}, { 'Retry-After': '5' });
      openStreams.set(who, held + 1);
      try {
        ctx.respond = false;
        ctx.res.writeHead(200, {
          'content-type': 'text/event-stream; charset=utf-8',
          'cache-control': 'no-store',
          'x-accel-buffering': 'no',
        });
        await follow(ctx, id, turn_id, first);
      } finally {
        const left = (openStreams.get(who) ?? 1) - 1;
        if (left) openStreams.set(who, left);
        else openStreams.delete(who);
        ctx.res.end();
      }
    },
  }),
];

/** Passes on the answer as it grows, until the turn ends, the client leaves or the stream's lifetime ends. */
async function follow(ctx: OperationContext & AuthedContext, chatId: string, turnId: string, first: Awaited<ReturnType<typeof getTurn>>) {
  const { res } = ctx;
  const gone = new AbortController();
  res.once('close', () => gone.abort()); // the client went away
  const send = (event: string, data: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  const links = turnLinks(chatId, turnId);
  let sent = '';
  let state = first.state;
  let stateAt = Date.now();
  const end = Date.now() + turnStreamTiming.lifetimeMs;
  res.write(': answer follows\n\n');
  while (!gone.signal.aborted && Date.now() < end) {
    // Once the turn has ended its answer is the chat's (the record of the answer so far is gone).
    const text = settled(state.status)
      ? (state.turns?.find((t) => t.role === 'assistant')?.content ?? null)
      : ((await ctx.services.chatAnswers.get(turnId).catch(() => null))?.text ?? null);
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
    if (Date.now() - stateAt >= turnStreamTiming.stateMs) {
      state = (await ctx.services.chatWorkflows.state(turnId).catch(() => null)) ?? state;
      stateAt = Date.now();
      continue;
    }
    await sleep(turnStreamTiming.pollMs, undefined, { signal: gone.signal }).catch(() => undefined);
  }
}
