/**
 * The guarded outbound HTTP client: every request the platform makes to an external server (MCP discovery
 * documents, Streamable HTTP / SSE transports) goes through here, so a user-supplied URL cannot reach the
 * platform's own network (SSRF).
 *
 * - Only http: and https: URLs without embedded credentials.
 * - The address is checked where the socket is opened: IP-literal hosts before connecting, host names in
 *   the connector's DNS lookup (every resolved address must pass, and the socket connects only to them),
 *   so DNS rebinding between a check and the connect cannot slip through. Redirects are followed by hand
 *   (at most 5), each hop checked the same way; credential headers never cross to another origin.
 * - Timeouts: `timeoutMs` bounds the whole request, body included, except for `text/event-stream`
 *   responses, where it bounds only the time to the response headers: an SSE stream may stay open as
 *   long as the caller wants (end it with the caller's own signal, or `close()`).
 * - Size: non-SSE bodies error with OutboundTooLargeError past `maxResponseBytes`; SSE streams are not capped.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { Agent, buildConnector, fetch as undiciFetch, type RequestInit as UndiciRequestInit } from 'undici';
import { addressChecker, parseAllowList } from './addresses.js';

export { parseAllowList };

/** The `fetch` shape the MCP SDK transports accept (their `fetch` option). */
export type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

export interface OutboundPolicy {
  /** CIDRs that may be contacted although they are not public (e.g. ['127.0.0.0/8', '::1/128'] in dev). */
  allow: string[];
  /** Bound on a whole request (for SSE responses: on the time to the headers). */
  timeoutMs: number;
  /** Largest non-SSE response body accepted. */
  maxResponseBytes: number;
  /** Bound on opening the TCP/TLS connection; default min(timeoutMs, 10 s). */
  connectTimeoutMs?: number;
}

export interface Outbound {
  /** Guarded fetch for the MCP SDK transports; honours init.redirect ('manual' returns 3xx as is). */
  fetch: FetchLike;
  /** GETs (or sends `init`) and parses a JSON body; a 2xx that is not JSON throws, other statuses give body null. */
  fetchJson(url: string | URL, init?: RequestInit): Promise<{ status: number; body: unknown }>;
  /** Throws OutboundRefusedError unless `url` may be fetched now (resolves the host name). */
  check(url: string | URL): Promise<void>;
  /** Closes all connections, open streams included. */
  close(): Promise<void>;
}

const allowSetting = 'MCP_OUTBOUND_ALLOW';
const maxRedirects = 5;
const credentialHeaders = ['authorization', 'proxy-authorization', 'cookie', 'x-api-key'];
const bodyHeaders = ['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location'];

/** A URL or address the guard will not contact; thrown before any packet is sent to it. */
export class OutboundRefusedError extends Error {
  readonly code = 'outbound_refused';
  constructor(
    readonly host: string,
    message: string,
  ) {
    super(message);
    this.name = 'OutboundRefusedError';
  }
}

export class OutboundTimeoutError extends Error {
  readonly code = 'outbound_timeout';
  constructor(message: string) {
    super(message);
    this.name = 'OutboundTimeoutError';
  }
}

export class OutboundTooLargeError extends Error {
  readonly code = 'outbound_too_large';
  constructor(readonly limit: number) {
    super(`response body exceeds the ${limit}-byte limit`);
    this.name = 'OutboundTooLargeError';
  }
}

/** Reads a body whole, throwing OutboundTooLargeError (and cancelling it) once it passes `maxBytes`. */
export async function readLimited(response: Response, maxBytes: number): Promise<Uint8Array> {
  if (Number(response.headers.get('content-length')) > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw new OutboundTooLargeError(maxBytes);
  }
  if (!response.body) return new Uint8Array();
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (let next = await reader.read(); !next.done; next = await reader.read()) {
    total += next.value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw new OutboundTooLargeError(maxBytes);
    }
    chunks.push(next.value);
  }
  return Buffer.concat(chunks, total);
}

/** Passes `source` through, erroring past `maxBytes` (maxBytes = Infinity: no cap); `settle` runs once it ends either way. */
function guardStream(
  source: { getReader(): ReadableStreamDefaultReader<Uint8Array> },
  maxBytes: number,
  settle: () => void,
  mapError: (err: unknown) => unknown,
) {
  const reader = source.getReader();
  let total = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await reader.read();
        if (next.done) {
          settle();
          return controller.close();
        }
        total += next.value.byteLength;
        if (total > maxBytes) throw new OutboundTooLargeError(maxBytes);
        controller.enqueue(next.value);
      } catch (err) {
        settle();
        const mapped = mapError(err);
        await reader.cancel(mapped).catch(() => undefined);
        controller.error(mapped);
      }
    },
    cancel: (reason) => (settle(), reader.cancel(reason)),
  });
}

/** Decides which addresses may be contacted, and words the refusal of one that may not. */
interface Guard {
  refusal: (address: string) => string | undefined;
  refuse: (host: string, address: string, why: string) => OutboundRefusedError;
}

function makeGuard(allow: string[]): Guard {
  return {
    refusal: addressChecker(allow.flatMap(parseAllowList)),
    refuse: (host, address, why) =>
      new OutboundRefusedError(
        host,
        `${host === address ? `${host} is` : `${host} resolves to ${address},`} ${why}; set ${allowSetting} to allow it`,
      ),
  };
}

/** Scheme, credentials and literal-IP checks; host names are checked when they are resolved. */
function checkUrl(guard: Guard, input: string | URL): URL {
  const url = new URL(input);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new OutboundRefusedError(url.hostname, `${url.protocol} URLs are refused: only http: and https: are allowed`);
  }
  if (url.username || url.password) throw new OutboundRefusedError(url.hostname, `${url.host}: URLs with embedded credentials are refused`);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const why = isIP(host) ? guard.refusal(host) : undefined;
  if (why) throw guard.refuse(host, host, why);
  return url;
}

/** The connector's DNS lookup: every resolved address must pass, and the socket connects only to them (no rebinding). */
function guardedLookup(guard: Guard): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, '');
      for (const { address } of addresses) {
        const why = guard.refusal(address);
        if (why) return callback(guard.refuse(hostname, address, why), '');
      }
      const first = addresses[0];
      if (!first) return callback(Object.assign(new Error(`${hostname} has no addresses`), { code: 'ENOTFOUND' }), '');
      if (options.all) callback(null, addresses);
      else callback(null, first.address, first.family);
    });
  };
}

function guardedAgent(policy: OutboundPolicy, guard: Guard, lookup: LookupFunction, connectTimeout: number): Agent {
  const connector = buildConnector({ timeout: connectTimeout, lookup });
  return new Agent({
    headersTimeout: policy.timeoutMs,
    bodyTimeout: 0, // SSE streams may idle; other bodies are bounded by the per-request timer
    // Node skips `lookup` for IP-literal hosts, so those are checked here, again, before connecting.
    connect: (options, callback) => {
      const why = isIP(options.hostname) ? guard.refusal(options.hostname) : undefined;
      if (why) return callback(guard.refuse(options.hostname, options.hostname, why), null);
      connector(options, callback);
    },
  });
}

/** undici's errors as the guard's own: a refusal stays one, connect and header timeouts become OutboundTimeoutError. */
function sortFetchError(err: unknown, host: string, connectTimeoutMs: number, timeoutMs: number): unknown {
  const cause = err instanceof TypeError && err.cause instanceof Error ? err.cause : err;
  if (cause instanceof OutboundRefusedError) return cause;
  const code = cause instanceof Error && 'code' in cause ? cause.code : undefined;
  if (code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'UND_ERR_HEADERS_TIMEOUT') {
    return new OutboundTimeoutError(
      `${host} did not answer within ${code === 'UND_ERR_CONNECT_TIMEOUT' ? connectTimeoutMs : timeoutMs} ms`,
    );
  }
  return err;
}

/** One hop's request; a followed redirect changes it in place. */
interface Hop {
  url: URL;
  method: string;
  headers: Headers;
  body: RequestInit['body'] | undefined;
}

type UndiciResponse = Awaited<ReturnType<typeof undiciFetch>>;

/**
 * Whether `res` is a redirect to follow by hand; if so its body is dropped and `req` becomes the next
 * hop's request, checked like the first. Credential headers never cross to another origin.
 */
async function followRedirect(
  res: UndiciResponse,
  req: Hop,
  redirect: RequestRedirect | undefined,
  hop: number,
  check: (url: URL) => URL,
): Promise<boolean> {
  const streamed = req.body instanceof ReadableStream;
  const location = [301, 302, 303, 307, 308].includes(res.status) ? res.headers.get('location') : null;
  const keepsBody = res.status === 307 || res.status === 308;
  // A streamed body cannot be sent twice: a 307/308 for it is returned to the caller as is.
  if (location === null || redirect === 'manual' || (keepsBody && streamed)) return false;
  await res.body?.cancel().catch(() => undefined);
  if (redirect === 'error') throw new TypeError(`${req.url.href} redirected and redirect is 'error'`);
  if (hop === maxRedirects) throw new OutboundRefusedError(req.url.hostname, `${req.url.host} redirected more than ${maxRedirects} times`);
  const next = check(new URL(location, req.url));
  if (!keepsBody && req.method !== 'GET' && req.method !== 'HEAD' && (res.status === 303 || req.method === 'POST')) {
    req.method = 'GET';
    req.body = undefined;
    for (const name of bodyHeaders) req.headers.delete(name);
  }
  if (next.origin !== req.url.origin) for (const name of credentialHeaders) req.headers.delete(name);
  req.url = next;
  return true;
}

/** The final answer as a standard Response: SSE streams uncapped (and no longer timed), other bodies capped. */
function guardedResponse(
  res: UndiciResponse,
  url: URL,
  hop: number,
  maxResponseBytes: number,
  settle: () => void,
  mapError: (err: unknown) => unknown,
): Response {
  const sse = /^text\/event-stream\b/i.test(res.headers.get('content-type') ?? '');
  if (sse || !res.body) settle();
  const nullBody = [204, 205, 304].includes(res.status) || !res.body;
  const stream = res.body ? guardStream(res.body, sse ? Infinity : maxResponseBytes, settle, mapError) : null;
  const out = new Response(nullBody ? null : stream, { status: res.status, statusText: res.statusText, headers: [...res.headers] });
  Object.defineProperties(out, { url: { value: url.href }, redirected: { value: hop > 0 } });
  return out;
}

/** Guarded fetch: one deadline over the whole request (SSE: to the headers), redirects followed by hand. */
function makeGuardedFetch(policy: OutboundPolicy, guard: Guard, agent: Agent, connectTimeout: number): FetchLike {
  return async function guardedFetch(input: string | URL, init: RequestInit = {}): Promise<Response> {
    const req: Hop = {
      url: checkUrl(guard, input),
      method: (init.method ?? 'GET').toUpperCase(),
      headers: new Headers(init.headers),
      body: init.body ?? undefined,
    };
    const deadline = new AbortController();
    const timer = setTimeout(
      () => deadline.abort(new OutboundTimeoutError(`${req.url.host} did not answer within ${policy.timeoutMs} ms`)),
      policy.timeoutMs,
    );
    timer.unref();
    const settle = () => clearTimeout(timer);
    const signal = init.signal ? AbortSignal.any([init.signal, deadline.signal]) : deadline.signal;
    // Our own deadline wins over whatever undici made of the abort; the caller's own abort is passed on as is.
    const mapError = (err: unknown): unknown =>
      deadline.signal.aborted && !init.signal?.aborted
        ? deadline.signal.reason
        : sortFetchError(err, req.url.host, connectTimeout, policy.timeoutMs);
    try {
      for (let hop = 0; ; hop++) {
        const requestInit: UndiciRequestInit = {
          method: req.method,
          headers: [...req.headers],
          body: req.body as UndiciRequestInit['body'], // same runtime classes; only the bundled typings differ
          signal,
          redirect: 'manual',
          dispatcher: agent,
          ...(req.body instanceof ReadableStream ? { duplex: 'half' } : {}),
        };
        const res = await undiciFetch(req.url, requestInit);
        if (await followRedirect(res, req, init.redirect, hop, (url) => checkUrl(guard, url))) continue;
        return guardedResponse(res, req.url, hop, policy.maxResponseBytes, settle, mapError);
      }
    } catch (err) {
      settle();
      throw mapError(err);
    }
  };
}

export function createOutbound(policy: OutboundPolicy): Outbound {
  const guard = makeGuard(policy.allow);
  const lookup = guardedLookup(guard);
  const connectTimeout = policy.connectTimeoutMs ?? Math.min(policy.timeoutMs, 10_000);
  const agent = guardedAgent(policy, guard, lookup, connectTimeout);
  const guardedFetch = makeGuardedFetch(policy, guard, agent, connectTimeout);

  return {
    fetch: guardedFetch,
    async fetchJson(url, init) {
      const headers = new Headers(init?.headers);
      if (!headers.has('accept')) headers.set('accept', 'application/json');
      const res = await guardedFetch(url, { ...init, headers });
      const text = new TextDecoder().decode(await readLimited(res, policy.maxResponseBytes));
      try {
        return { status: res.status, body: JSON.parse(text) as unknown };
      } catch {
        if (res.ok) throw new Error(`${new URL(url).host} answered ${res.status} with a body that is not JSON`);
        return { status: res.status, body: null };
      }
    },
    async check(input) {
      const url = checkUrl(guard, input);
      const host = url.hostname.replace(/^\[|\]$/g, '');
      if (isIP(host)) return;
      await new Promise<void>((resolve, reject) => lookup(host, { all: true }, (err) => (err ? reject(err) : resolve())));
    },
    close: () => agent.destroy(),
  };
}
