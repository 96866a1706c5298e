// subscriptions/listen (2026-07-28) at POST /mcp. The SDK's handler serves the wire (its validation
// ladder, the acknowledgment first, the subscription id on every notification, keep-alive comments),
// but it checks no access and feeds streams from a process-local bus. So a listen request is taken
// here: every resource it names must be one the caller reads, the stream holds one of the person's
// event-stream slots (the caps and the shutdown of GET /workspaces/{id}/events/stream), and its bus
// is this stream's own, fed from the store (watch.ts) and checked per notification (follow.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  createMcpHandler,
  McpServer,
  PROTOCOL_VERSION_META_KEY,
  ProtocolErrorCode,
  SERVER_INFO_META_KEY,
  SUBSCRIPTION_ID_META_KEY,
  type ServerEventBus,
} from '@modelcontextprotocol/server';
import { Gauge } from 'prom-client';
import { z } from 'zod';
import { eventStreams, eventStreamTiming } from '../../api/routes/event-stream.js';
import type { Principal } from '../../identity/principal.js';
import { metricsRegistry } from '../../observability/metrics.js';
import type { OperationContext } from '../../operations/services.js';
import { serverInfo } from '../tool-table.js';
import { SlowReader, writeWebResponse } from '../web-response.js';
import { Follower, type EndReason } from './follow.js';
import { admitTargets, type RpcError, type Target } from './targets.js';

export const listenStreamsOpen = new Gauge({
  name: 'platform_mcp_listen_streams',
  help: 'subscriptions/listen streams open at /mcp on this API instance.',
  registers: [metricsRegistry],
});

const listenBody = z.object({
  id: z.union([z.string(), z.number()]),
  params: z.object({ notifications: z.looseObject({ resourceSubscriptions: z.array(z.string()).optional() }) }),
});

/** A 2026-07-28 `subscriptions/listen` (a request with the per-request envelope); a 2025-era one is not. */
export function isListenRequest(body: unknown): boolean {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const { method, id, params } = body as { method?: unknown; id?: unknown; params?: { _meta?: Record<string, unknown> } };
  return method === 'subscriptions/listen' && id !== undefined && params?._meta?.[PROTOCOL_VERSION_META_KEY] !== undefined;
}

/** What a listen stream's handler serves from: only the resources capability (no tools, prompts or list_changed). */
const listenServer = () => new McpServer(serverInfo, { capabilities: { resources: { subscribe: true } } });

/** The stream's own bus: nothing publishes on it; the follower feeds the one listener the SDK subscribes. */
function followerBus(follower: Follower): ServerEventBus {
  return {
    publish: () => undefined,
    subscribe: (listener) => follower.start((uri) => listener({ kind: 'resource_updated', uri })),
  };
}

const frame = (message: unknown) => `event: message\ndata: ${JSON.stringify(message)}\n\n`;

/**
 * The stream's last message when the server ends it: the listen request's result when the stream
 * simply ran its course (the spec's graceful close), an error naming what was lost otherwise, so a
 * client that listens again learns why it is refused.
 */
function lastMessage(id: string | number, reason: EndReason) {
  if (reason.kind === 'lifetime' || reason.kind === 'shutdown')
    return {
      jsonrpc: '2.0',
      id,
      result: { resultType: 'complete', _meta: { [SUBSCRIPTION_ID_META_KEY]: id, [SERVER_INFO_META_KEY]: serverInfo } },
    };
  const error: RpcError =
    reason.kind === 'access'
      ? {
          code: ProtocolErrorCode.InvalidParams,
          message: `You can no longer read ${reason.uri}: its notifications ended.`,
          data: { uri: reason.uri },
        }
      : {
          code: ProtocolErrorCode.InvalidRequest,
          message: 'The credentials this stream was opened with no longer hold: sign in again, then listen again.',
        };
  return { jsonrpc: '2.0', id, error };
}

/** A JSON-RPC error answered as one JSON body (HTTP 200, as the SDK answers its in-band listen refusals). */
function answerError(res: ServerResponse, id: unknown, error: RpcError): void {
  const body = JSON.stringify({ jsonrpc: '2.0', id: id ?? null, error });
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });
  res.end(body);
}

/** The Node request as the web Request the SDK's handler reads (its body is handed over parsed). */
function webRequest(req: IncomingMessage, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name === 'content-length' || name === 'transfer-encoding') continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  return new Request(new URL(req.url ?? '/mcp', `http://${req.headers.host ?? 'localhost'}`), { method: 'POST', headers, signal });
}

/**
 * Serves one `subscriptions/listen` request on its POST's response until the client leaves (it
 * closes the stream, or sends nothing more and the connection drops), the server stops, the caller
 * loses access, or the stream's lifetime (the access token's, at most an hour) ends.
 */
export async function serveListen(
  ctx: OperationContext,
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
  reauthenticate?: () => Promise<Principal | null>,
): Promise<void> {
  const parsed = listenBody.safeParse(body);
  const id = parsed.success ? parsed.data.id : (body as { id?: unknown }).id;
  // A request the schema refuses follows nothing: the SDK's handler answers it (-32602 for a filter it cannot read).
  let targets: Target[] = [];
  if (parsed.success) {
    const admitted = await admitTargets(ctx, parsed.data.params.notifications.resourceSubscriptions ?? []);
    if ('error' in admitted) return answerError(res, id, admitted.error);
    targets = admitted.targets;
  }
  const slot = eventStreams(ctx.services).acquire(ctx.state.principal.subject);
  if ('full' in slot)
    return answerError(res, id, {
      code: ProtocolErrorCode.InternalError,
      message:
        slot.full === 'person'
          ? 'Subscription limit reached: you have as many streams open as one person may; close one first.'
          : 'Subscription limit reached on this server: listen again shortly.',
      data: { limit: slot.full },
    });
  const stop = new AbortController();
  let reason: EndReason | undefined;
  const end = (why: EndReason) => {
    reason ??= why;
    stop.abort();
  };
  const left = () => stop.abort();
  const shutdown = () => end({ kind: 'shutdown' });
  res.once('close', left);
  slot.signal.addEventListener('abort', shutdown, { once: true });
  const lifetimeMs = Math.min(ctx.services.config.ACCESS_TOKEN_TTL_SECONDS, 3600) * 1000;
  const follower = new Follower(ctx, targets, { reauthenticate, end, lifetimeMs });
  const log = { request_id: ctx.state.requestId };
  const handler = createMcpHandler(listenServer, {
    legacy: 'reject',
    bus: followerBus(follower),
    maxSubscriptions: 1,
    keepAliveMs: eventStreamTiming.heartbeatMs,
    onerror: (err) => ctx.services.logger.debug({ ...log, err }, 'subscriptions/listen refused or failed'),
  });
  listenStreamsOpen.inc();
  try {
    const streamed = await writeWebResponse(
      await handler.fetch(webRequest(req, stop.signal), { parsedBody: body }),
      res,
      stop.signal,
      eventStreamTiming.drainTimeoutMs,
    );
    if (streamed && reason && id !== undefined && !res.destroyed) res.write(frame(lastMessage(id as string | number, reason)));
  } catch (err) {
    if (err instanceof SlowReader) ctx.services.logger.info(log, 'listen stream reader too slow: cut off');
    else ctx.services.logger.error({ ...log, err }, 'listen stream failed');
    res.destroy();
  } finally {
    listenStreamsOpen.dec();
    res.off('close', left);
    slot.signal.removeEventListener('abort', shutdown);
    stop.abort(); // the SDK's stream lets go
    follower.stop(); // and the follower with its watches, whether or not the SDK unsubscribed it
    slot.release();
    if (!res.writableEnded && !res.destroyed) res.end();
  }
}
