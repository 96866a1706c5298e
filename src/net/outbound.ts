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
  constructor(readonly host: string, message: string) {
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
function guardStream(source: { getReader(): ReadableStreamDefaultReader<Uint8Array> }, maxBytes: number, settle: () => void, mapError: (err: unknown) => unknown) {
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

export function createOutbound(policy: OutboundPolicy): Outbound {
  const refusal = addressChecker(policy.allow.flatMap(parseAllowList));
  const refuse = (host: string, address: string, why: string) =>
    new OutboundRefusedError(host, `${host === address ? `${host} is` : `${host} resolves to ${address},`} ${why}; set ${allowSetting} to allow it`);

  /** Scheme, credentials and literal-IP checks; host names are checked when they are resolved. */
  function checkUrl(input: string | URL): URL {
    const url = new URL(input);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new OutboundRefusedError(url.hostname, `${url.protocol} URLs are refused: only http: and https: are allowed`);
    }
    if (url.username || url.password) throw new OutboundRefusedError(url.hostname, `${url.host}: URLs with embedded credentials are refused`);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const why = isIP(host) ? refusal(host) : undefined;
    if (why) throw refuse(host, host, why);
    return url;
  }

  const guardedLookup: LookupFunction = (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, '');
      for (const { address } of addresses) {
        const why = refusal(address);
        if (why) return callback(refuse(hostname, address, why), '');
      }
      const first = addresses[0];
      if (!first) return callback(Object.assign(new Error(`${hostname} has no addresses`), { code: 'ENOTFOUND' }), '');
      if (options.all) callback(null, addresses);
      else callback(null, first.address, first.family);
    });
  };

  const connectTimeout = policy.connectTimeoutMs ?? Math.min(policy.timeoutMs, 10_000);
  const connector = buildConnector({ timeout: connectTimeout, lookup: guardedLookup });
  const agent = new Agent({
    headersTimeout: policy.timeoutMs,
    bodyTimeout: 0, // SSE streams may idle; other bodies are bounded by the per-request timer
    // Node skips `lookup` for IP-literal hosts, so those are checked here, again, before connecting.
    connect: (options, callback) => {
      const why = isIP(options.hostname) ? refusal(options.hostname) : undefined;
      if (why) return callback(refuse(options.hostname, options.hostname, why), null);
      connector(options, callback);
    },
  });

  async function guardedFetch(input: string | URL, init: RequestInit = {}): Promise<Response> {
    let url = checkUrl(input);
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new OutboundTimeoutError(`${url.host} did not answer within ${policy.timeoutMs} ms`)), policy.timeoutMs);
    timer.unref();
    const settle = () => clearTimeout(timer);
    const signal = init.signal ? AbortSignal.any([init.signal, deadline.signal]) : deadline.signal;
    const mapError = (err: unknown): unknown => {
      if (deadline.signal.aborted && !init.signal?.aborted) return deadline.signal.reason;
      const cause = err instanceof TypeError && err.cause instanceof Error ? err.cause : err;
      if (cause instanceof OutboundRefusedError) return cause;
      const code = cause instanceof Error && 'code' in cause ? cause.code : undefined;
      if (code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'UND_ERR_HEADERS_TIMEOUT') {
        return new OutboundTimeoutError(`${url.host} did not answer within ${code === 'UND_ERR_CONNECT_TIMEOUT' ? connectTimeout : policy.timeoutMs} ms`);
      }
      return err;
    };
    let method = (init.method ?? 'GET').toUpperCase();
    const headers = new Headers(init.headers);
    let body = init.body ?? undefined;
    try {
      for (let hop = 0; ; hop++) {
        const streamed = body instanceof ReadableStream;
        const requestInit: UndiciRequestInit = {
          method,
          headers: [...headers],
          body: body as UndiciRequestInit['body'], // same runtime classes; only the bundled typings differ
          signal,
          redirect: 'manual',
          dispatcher: agent,
          ...(streamed ? { duplex: 'half' } : {}),
        };
        const res = await undiciFetch(url, requestInit);
        const location = [301, 302, 303, 307, 308].includes(res.status) ? res.headers.get('location') : null;
        const keepsBody = res.status === 307 || res.status === 308;
        if (location !== null && init.redirect !== 'manual' && !(keepsBody && streamed)) {
          await res.body?.cancel().catch(() => undefined);
          if (init.redirect === 'error') throw new TypeError(`${url.href} redirected and redirect is 'error'`);
          if (hop === maxRedirects) throw new OutboundRefusedError(url.hostname, `${url.host} redirected more than ${maxRedirects} times`);
          const next = checkUrl(new URL(location, url));
          if (!keepsBody && method !== 'GET' && method !== 'HEAD' && (res.status === 303 || method === 'POST')) {
            method = 'GET';
            body = undefined;
            for (const name of bodyHeaders) headers.delete(name);
          }
          if (next.origin !== url.origin) for (const name of credentialHeaders) headers.delete(name);
          url = next;
          continue;
        }
        const sse = /^text\/event-stream\b/i.test(res.headers.get('content-type') ?? '');
        if (sse || !res.body) settle();
        const nullBody = [204, 205, 304].includes(res.status) || !res.body;
        const stream = res.body ? guardStream(res.body, sse ? Infinity : policy.maxResponseBytes, settle, mapError) : null;
        const out = new Response(nullBody ? null : stream, { status: res.status, statusText: res.statusText, headers: [...res.headers] });
        Object.defineProperties(out, { url: { value: url.href }, redirected: { value: hop > 0 } });
        return out;
      }
    } catch (err) {
      settle();
      throw mapError(err);
    }
  }

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
      const url = checkUrl(input);
      const host = url.hostname.replace(/^\[|\]$/g, '');
      if (isIP(host)) return;
      await new Promise<void>((resolve, reject) => guardedLookup(host, { all: true }, (err) => (err ? reject(err) : resolve())));
    },
    close: () => agent.destroy(),
  };
}
