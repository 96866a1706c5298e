// GET /workspaces/{id}/events/stream: a workspace's events as Server-Sent Events, as they are recorded.
// Same access as GET /workspaces/{id}/events. Resume with Last-Event-ID (or ?last_event_id=): exactly
// the events after it; without one, the stream starts after the newest event.
import type { Server } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import type { EventTail, TailBatch } from '../../events/tail.js';
import { StreamSlots } from '../../events/stream-slots.js';
import { SlowReader, sseMessage, tooManyStreams, writeSse } from '../sse.js';
import { visibleContainer } from '../../operations/containers.js';
import { stillFollows, workspaceEventTail } from '../../operations/events.js';
import { uuid } from '../../kernel/json/schemas.js';
import type { Services } from '../../operations/services.js';
import { presentEvent } from '../../presenters/index.js';
import { isStorageUnavailable, withDeadline } from '../../store/deadline.js';
import type { AppContext } from '../context.js';
import { stillAuthenticated } from '../middleware/authenticate.js';
import { route, type RouteDef } from '../route.js';
import { idParam, parse } from '../validate.js';

export const eventStreamTiming = {
  /** Between two reads of the store. */
  pollMs: 1000,
  /** Deadline of each store read. */
  storeDeadlineMs: 5000,
  /** A comment line when nothing else was sent for this long, so proxies keep the connection. */
  heartbeatMs: 15_000,
  /** The client's reconnection delay (the `retry:` field). */
  retryMs: 3000,
  /** The workspace is looked up again this often: a stream ends when its reader loses access. */
  accessCheckMs: 30_000,
  /** A client that reads nothing for this long while its buffer is full is cut off. */
  drainTimeoutMs: 30_000,
};

const eventId = uuid('must be an event id (a UUID) from this stream');
const streamQuery = z.object({ last_event_id: eventId.optional() });

const slotsByServices = new WeakMap<Services, StreamSlots>();

/** The open event streams of the API built on these services (tests count them; shutdown may stop them all). */
export function eventStreams(services: Services): StreamSlots {
  let slots = slotsByServices.get(services);
  if (!slots) slotsByServices.set(services, (slots = new StreamSlots()));
  return slots;
}

/** Last-Event-ID (what EventSource sends on reconnecting), else ?last_event_id=. */
function resumePoint(ctx: AppContext, fromQuery: string | undefined): string | undefined {
  const header = ctx.get('last-event-id');
  if (!header) return fromQuery;
  return parse(z.object({ 'Last-Event-ID': eventId }), { 'Last-Event-ID': header.trim() }, 'header')['Last-Event-ID'];
}

const storeCall = <T>(what: string, work: Promise<T>) => withDeadline(what, work, eventStreamTiming.storeDeadlineMs);

export const eventStreamRoutes: RouteDef[] = [
  route({
    method: 'get',
    path: '/workspaces/:id/events/stream',
    access: 'artifact:read',
    doc: { summary: "A workspace's events as they happen (Server-Sent Events; Last-Event-ID resumes)", produces: 'text/event-stream' },
    query: streamQuery,
    handler: async (ctx, { last_event_id }) => {
      const { id } = parse(idParam, ctx.params, 'path');
      const after = resumePoint(ctx, last_event_id);
      await visibleContainer(ctx, 'workspace', id);
      const slot = eventStreams(ctx.services).acquire(ctx.state.principal.subject);
      if ('full' in slot) throw tooManyStreams(slot.full);
      try {
        const tail = await workspaceEventTail(ctx.services, id, after, eventStreamTiming.storeDeadlineMs);
        ctx.respond = false; // the response is written here, as events come
        ctx.status = 200;
        await stream(ctx, id, tail, slot.signal);
      } finally {
        slot.release();
      }
    },
  }),
];

/** Follows the workspace until the client leaves, the server stops, access is lost or the stream's lifetime ends. */
async function stream(ctx: AppContext, workspaceId: string, tail: EventTail, stopAll: AbortSignal): Promise<void> {
  const { services } = ctx;
  const res = ctx.res;
  const server = (ctx.req.socket as { server?: Server }).server;
  const stopper = new AbortController();
  const stop = () => stopper.abort();
  res.once('close', stop); // the client went away
  stopAll.addEventListener('abort', stop, { once: true });
  const log = { request_id: ctx.state.requestId, workspace_id: workspaceId };
  // A token lives at most ACCESS_TOKEN_TTL_SECONDS (an hour at most here): then the client reconnects with a current one.
  const endsAt = Date.now() + Math.min(services.config.ACCESS_TOKEN_TTL_SECONDS, 3600) * 1000;
  const t = eventStreamTiming;
  let lastWrite = Date.now();
  let lastAccessCheck = Date.now();
  const send = async (chunk: string) => {
    await writeSse(res, chunk, stopper.signal, eventStreamTiming.drainTimeoutMs);
    lastWrite = Date.now();
  };
  try {
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Accel-Buffering': 'no',
      // One stream per connection: ending it frees the connection, so a server shutting down can close.
      Connection: 'close',
    });
    await send(`retry: ${t.retryMs}\n: events of workspace ${workspaceId}\n\n`);
    while (!stopper.signal.aborted && server?.listening !== false && Date.now() < endsAt) {
      if (Date.now() - lastAccessCheck >= t.accessCheckMs) {
        lastAccessCheck = Date.now();
        // The credentials as they are now (a revoked key or session ends the stream), then the grants.
        // Storage that does not answer (undefined) skips the check until the next one.
        const principal = await storeRead(ctx, () => stillAuthenticated(ctx));
        if (principal === null) break;
        const follows = principal && (await storeRead(ctx, () => stillFollows(services, principal, workspaceId)));
        if (follows === false) break;
      }
      const batch = await storeRead(ctx, () => tail.next());
      if (batch) await deliver(batch, tail, send);
      if (Date.now() - lastWrite >= t.heartbeatMs) await send(': keep-alive\n\n');
      await sleep(t.pollMs, undefined, { signal: stopper.signal }).catch(() => undefined);
    }
  } catch (err) {
    if (err instanceof SlowReader) services.logger.info(log, 'event stream reader too slow: cut off');
    else services.logger.error({ ...log, err }, 'event stream failed');
    res.destroy();
  } finally {
    res.off('close', stop);
    stopAll.removeEventListener('abort', stop);
    stopper.abort(); // a wait still pending lets go
    if (!res.writableEnded && !res.destroyed) res.end();
  }
}

/** A store read under its deadline; storage that does not answer is skipped (the next poll tries again). */
async function storeRead<T>(ctx: AppContext, read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await storeCall('event stream read', read());
  } catch (err) {
    if (!isStorageUnavailable(err)) throw err;
    ctx.services.logger.warn({ request_id: ctx.state.requestId, err }, 'event stream: storage unavailable, retrying');
    return undefined;
  }
}

async function deliver(batch: TailBatch, tail: EventTail, send: (chunk: string) => Promise<void>): Promise<void> {
  for (const doc of batch.events) await send(sseMessage(doc._id, doc.kind, presentEvent(doc)));
  if (batch.overflowed) {
    const detail = 'More events were recorded than one read delivers: some were skipped. Reload the list, then follow from here.';
    await send(sseMessage(tail.position, 'overflow', { detail }));
  }
}
