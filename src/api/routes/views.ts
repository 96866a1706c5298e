// The view content type's REST routes (issue #36): a view's results, once or as they change.
import type { Server } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { Problem } from '../../kernel/errors/problem.js';
import { SlowReader, sseMessage, tooManyStreams, writeSse } from '../sse.js';
import { viewResults } from '../../operations/views.js';
import { ViewWatch } from '../../operations/view-watch.js';
import { viewResultsSchema } from '../../presenters/views.js';
import { isStorageUnavailable, withDeadline } from '../../store/deadline.js';
import { artifactId } from '../artifact-access.js';
import type { AuthedContext } from '../context.js';
import { stillAuthenticated } from '../middleware/authenticate.js';
import { route, type RouteDef } from '../route.js';
import { parse } from '../validate.js';
import { eventStreams } from './event-stream.js';

export const viewStreamTiming = {
  /** Between two polls: events within one poll are one change. A poll reads nothing while nothing moved (ViewWatch). */
  pollMs: 1000,
  /** The view and its sources are looked up as the reader again at least this often (a withdrawn grant records no event). */
  lookMs: 5000,
  /** With a query, results are evaluated again this often for `settleMs` after a change (search indexing trails writes)… */
  refreshMs: 5000,
  settleMs: 30_000,
  /** …and at least this often otherwise (a safety net for a change no mark shows, such as a collection artifact deleted). */
  idleRefreshMs: 60_000,
  /** Deadline of one poll (the look, and an evaluation when it is due), and of each store read in it. */
  pollDeadlineMs: 10_000,
  heartbeatMs: 15_000,
  retryMs: 3000,
  /** The credentials are read again this often: a revoked key, a signed-out session or withdrawn scopes end the stream. */
  accessCheckMs: 5000,
  drainTimeoutMs: 30_000,
};

/** A digest the stream sent (its event id), as Last-Event-ID or ?last_digest=. */
const digest = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be a digest this stream sent');
const streamQuery = z.object({ last_digest: digest.optional() });

export const viewRoutes: RouteDef[] = [
  route({
    method: 'get',
    path: '/artifacts/:id/results',
    access: 'artifact:read',
    doc: {
      summary: "A view's results: the artifacts its filter matches in its sources, as you may read them",
      description:
        'The artifact must be an application/vnd.platform.view+json (409 `not-a-view` otherwise). Sources you cannot read are listed with `readable: false` and contribute nothing. A view with a query also needs search:read. The ETag is the results digest: If-None-Match with it answers 304 while nothing changed. The results are private to the caller (Cache-Control: private, no-cache).',
      errors: [409],
      response: viewResultsSchema,
    },
    handler: async (ctx) => {
      const results = await viewResults(ctx, artifactId(ctx));
      const etag = `"${results.digest}"`;
      ctx.set('ETag', etag);
      // The results are this reader's (their grants and scopes): no shared cache may keep them, and a
      // private one asks again each time (If-None-Match), since they change without a new URL.
      ctx.set('Cache-Control', 'private, no-cache');
      ctx.set('Vary', 'Authorization');
      // A client polling with the digest it has is told nothing changed, without the body.
      if (notModified(ctx.get('if-none-match'), etag)) {
        ctx.status = 304;
        return;
      }
      ctx.body = results;
    },
  }),
  route({
    method: 'get',
    path: '/artifacts/:id/results/stream',
    access: 'artifact:read',
    doc: {
      summary: "A view's results as they change (Server-Sent Events: a `results` event each time)",
      description:
        'The first event holds the current results; another follows whenever they change (an artifact written in a source, the view edited, access changed). Each event id is the results digest: reconnecting with it as Last-Event-ID skips results you already have. An `error` event (problem+json) ends the stream when the view is gone or no longer readable; a revoked key or a signed-out session ends it within seconds, and a source whose grant was withdrawn is reported unreadable at the next look (at most 5 s).',
      errors: [409, 429],
      produces: 'text/event-stream',
    },
    query: streamQuery,
    handler: async (ctx, { last_digest }) => {
      const id = artifactId(ctx);
      const header = ctx.get('last-event-id').trim();
      const known = header
        ? parse(z.object({ 'Last-Event-ID': digest }), { 'Last-Event-ID': header }, 'header')['Last-Event-ID']
        : last_digest;
      const t = viewStreamTiming;
      const watch = new ViewWatch(ctx, id, known, {
        pollMs: t.pollMs,
        lookMs: t.lookMs,
        refreshMs: t.refreshMs,
        settleMs: t.settleMs,
        idleRefreshMs: t.idleRefreshMs,
        deadlineMs: t.pollDeadlineMs,
      });
      // The slot first: a person at the cap is refused before any evaluation is spent on them.
      const slot = eventStreams(ctx.services).acquire(ctx.state.principal.subject);
      if ('full' in slot) throw tooManyStreams(slot.full);
      try {
        // The first look answers as GET .../results would (404, 409, 403) before the stream opens.
        const first = await withDeadline('view results', watch.poll(), t.pollDeadlineMs);
        ctx.respond = false; // written here, as results change
        ctx.status = 200;
        await stream(ctx, id, watch, first, slot.signal);
      } finally {
        slot.release();
      }
    },
  }),
];

/** If-None-Match (weak comparison, RFC 9110 §13.1.2): `*` or one of the listed tags is the current one. */
export function notModified(header: string, etag: string): boolean {
  if (!header.trim()) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

async function stream(
  ctx: AuthedContext,
  viewId: string,
  watch: ViewWatch,
  first: Awaited<ReturnType<ViewWatch['poll']>>,
  stopAll: AbortSignal,
): Promise<void> {
  const { services } = ctx;
  const res = ctx.res;
  const server = (ctx.req.socket as { server?: Server }).server;
  const stopper = new AbortController();
  const stop = () => stopper.abort();
  res.once('close', stop);
  stopAll.addEventListener('abort', stop, { once: true });
  const log = { request_id: ctx.state.requestId, view_id: viewId };
  const t = viewStreamTiming;
  const endsAt = Date.now() + Math.min(services.config.ACCESS_TOKEN_TTL_SECONDS, 3600) * 1000;
  let lastWrite = Date.now();
  let lastAccessCheck = Date.now();
  const send = async (chunk: string) => {
    await writeSse(res, chunk, stopper.signal, viewStreamTiming.drainTimeoutMs);
    lastWrite = Date.now();
  };
  try {
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Accel-Buffering': 'no',
      Connection: 'close',
    });
    await send(`retry: ${t.retryMs}\n: results of view ${viewId}\n\n`);
    if (first) await send(sseMessage(first.digest, 'results', first));
    while (!stopper.signal.aborted && server?.listening !== false && Date.now() < endsAt) {
      await sleep(t.pollMs, undefined, { signal: stopper.signal }).catch(() => undefined);
      if (stopper.signal.aborted) break;
      if (Date.now() - lastAccessCheck >= t.accessCheckMs) {
        lastAccessCheck = Date.now();
        const principal = await storeRead(ctx, () => stillAuthenticated(ctx));
        if (principal === null || (principal && !principal.scopes.allows('artifact:read'))) break;
        if (principal) {
          // The polls go on as the credentials are now (scopes, resource filters and type limits may have narrowed).
          ctx.state.principal = principal;
          watch.invalidate();
        }
      }
      let next;
      try {
        next = await storeRead(ctx, () => watch.poll());
      } catch (err) {
        if (!(err instanceof Problem)) throw err;
        await send(sseMessage('', 'error', err.body(`/artifacts/${viewId}/results/stream`)));
        break;
      }
      if (next) await send(sseMessage(next.digest, 'results', next));
      if (Date.now() - lastWrite >= t.heartbeatMs) await send(': keep-alive\n\n');
    }
  } catch (err) {
    if (err instanceof SlowReader) services.logger.info(log, 'view stream reader too slow: cut off');
    // A poll that was under way when the reader left or the server began to stop: nothing went wrong for anyone.
    else if (stopper.signal.aborted || server?.listening === false)
      services.logger.info({ ...log, err }, 'view stream ended during a poll');
    else services.logger.error({ ...log, err }, 'view stream failed');
    res.destroy();
  } finally {
    res.off('close', stop);
    stopAll.removeEventListener('abort', stop);
    stopper.abort();
    if (!res.writableEnded && !res.destroyed) res.end();
  }
}

/** A poll under its deadline; storage that does not answer skips it (the next poll tries again). */
async function storeRead<T>(ctx: AuthedContext, read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await withDeadline('view stream poll', read(), viewStreamTiming.pollDeadlineMs);
  } catch (err) {
    if (!isStorageUnavailable(err)) throw err;
    ctx.services.logger.warn({ request_id: ctx.state.requestId, err }, 'view stream: storage unavailable, retrying');
    return undefined;
  }
}
