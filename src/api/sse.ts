// What every Server-Sent Events route shares (the workspace event stream, a view's results, a chat
// turn, a stream's status): the refusal past the slots, the message framing, and a write that waits
// while the client's buffer is full and cuts off a reader too slow to drain it.
import type { ServerResponse } from 'node:http';
import { Problem } from '../kernel/errors/problem.js';

/** 429 past the per-person or per-replica slots every event stream shares (events/stream-slots.ts). */
export const tooManyStreams = (which: 'person' | 'total') =>
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

/** One event: its id (what Last-Event-ID names), its type and its JSON. */
export const sseMessage = (id: string, event: string, data: unknown) => `id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/** The client reads too slowly: its buffer stayed full past the drain timeout. */
export class SlowReader extends Error {}

/** Writes a chunk, waiting while the client's buffer is full (never more than one message buffered past it). */
export async function writeSse(res: ServerResponse, chunk: string, stop: AbortSignal, drainTimeoutMs: number): Promise<void> {
  if (res.write(chunk) || stop.aborted) return;
  await new Promise<void>((resolve, reject) => {
    const done = (err?: Error) => {
      clearTimeout(timer);
      res.off('drain', ok);
      stop.removeEventListener('abort', ok);
      if (err) reject(err);
      else resolve();
    };
    const ok = () => done();
    const timer = setTimeout(() => done(new SlowReader()), drainTimeoutMs);
    res.once('drain', ok);
    stop.addEventListener('abort', ok, { once: true });
  });
}
