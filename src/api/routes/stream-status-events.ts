// GET /artifacts/{id}/status/stream: a stream's status as Server-Sent Events, a `status` event each
// time it changes (the session's record is polled once a second). Open at most as long as the token
// lives (an hour at most); the credentials are checked again every 30 s; a stream that is gone or no
// longer readable ends it with an `error` event.
import { createHash } from 'node:crypto';
import type { Server } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { Problem } from '../../kernel/errors/problem.js';
import { streamStatus } from '../../operations/streams.js';
import { presentStreamStatus } from '../../presenters/streams.js';
import { isStorageUnavailable, withDeadline } from '../../store/deadline.js';
import type { AuthedContext } from '../context.js';
import { stillAuthenticated } from '../middleware/authenticate.js';
import { eventStreams } from './event-stream.js';

export const statusStreamTiming = { pollMs: 1000, deadlineMs: 10_000, heartbeatMs: 15_000, retryMs: 3000, accessCheckMs: 30_000 };

const tooManyStreams = (which: 'person' | 'total') =>
  new Problem(
    429,
    'too-many-streams',
    'Too many open event streams',
    which === 'person'
      ? 'You have as many event streams open as one person may; close one first.'
      : 'This server holds as many event streams as it may; retry shortly.',
    { limit: which },
    { 'Retry-After': '5' },
  );

const message = (id: string, event: string, data: unknown) => `id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
const digestOf = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('base64url').slice(0, 22);

/** Serves the follow: the first look answers as GET …/status would (404, 409, 403) before the stream opens. */
export async function followStreamStatus(ctx: AuthedContext, id: string): Promise<void> {
  const t = statusStreamTiming;
  const read = async () => presentStreamStatus(id, await withDeadline('stream status', streamStatus(ctx, id), t.deadlineMs));
  const first = await read();
  const slot = eventStreams(ctx.services).acquire(ctx.state.principal.subject);
  if ('full' in slot) throw tooManyStreams(slot.full);
  ctx.respond = false;
  const res = ctx.res;
  const server = (ctx.req.socket as { server?: Server }).server;
  const stopper = new AbortController();
  const stop = () => stopper.abort();
  res.once('close', stop);
  slot.signal.addEventListener('abort', stop, { once: true });
  const endsAt = Date.now() + Math.min(ctx.services.config.ACCESS_TOKEN_TTL_SECONDS, 3600) * 1000;
  let lastWrite = Date.now();
  let lastCheck = Date.now();
  // A client that does not read is not waited for: its stream ends rather than holding our buffers.
  const send = (chunk: string) => {
    if (!res.write(chunk) && res.writableLength > 1024 * 1024) stop();
    lastWrite = Date.now();
  };
  try {
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Accel-Buffering': 'no',
      Connection: 'close',
    });
    let last = digestOf(first);
    send(`retry: ${t.retryMs}\n: status of stream ${id}\n\n`);
    send(message(last, 'status', first));
    while (!stopper.signal.aborted && server?.listening !== false && Date.now() < endsAt) {
      await sleep(t.pollMs, undefined, { signal: stopper.signal }).catch(() => undefined);
      if (stopper.signal.aborted) break;
      try {
        if (Date.now() - lastCheck >= t.accessCheckMs) {
          lastCheck = Date.now();
          if ((await withDeadline('stream status access', stillAuthenticated(ctx), t.deadlineMs)) === null) break;
        }
        const next = await read();
        const digest = digestOf(next);
        if (digest !== last) send(message((last = digest), 'status', next));
      } catch (err) {
        if (err instanceof Problem) {
          send(message('', 'error', err.body(`/artifacts/${id}/status/stream`)));
          break;
        }
        if (!isStorageUnavailable(err)) throw err;
        // Storage did not answer in time: the next poll tries again.
      }
      if (Date.now() - lastWrite >= t.heartbeatMs) send(': keep-alive\n\n');
    }
  } catch (err) {
    ctx.services.logger.error({ request_id: ctx.state.requestId, stream_id: id, err }, 'stream status follow failed');
    res.destroy();
  } finally {
    res.off('close', stop);
    slot.signal.removeEventListener('abort', stop);
    slot.release();
    if (!res.writableEnded && !res.destroyed) res.end();
  }
}
