import { ProtocolError, SdkError, SdkErrorCode, SdkHttpError, SseError, UnauthorizedError } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { DiscoveryError } from './session.js';
import type { CallFailure } from './failure.js';

/** How much of an error body a tool result carries (§7.1: "a truncated body"). */
export const errorBodyBound = 2000;

/**
 * Replaces every secret value inside the strings of a JSON-able value (keys and other values are left
 * as they are). Secrets shorter than 4 characters are not hunted.
 */
export function redact<T>(value: T, secrets: string[]): T {
  const hunted = secrets.filter((s) => s.length >= 4);
  if (hunted.length === 0) return value;
  const scrub = (v: unknown): unknown => {
    if (typeof v === 'string') return hunted.reduce((text, secret) => text.split(secret).join('[redacted]'), v);
    if (Array.isArray(v)) return v.map(scrub);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, scrub(x)]));
    return v;
  };
  return scrub(value) as T;
}

export const truncate = (text: string, bound: number) =>
  text.length > bound ? `${text.slice(0, bound)}… [${text.length - bound} more characters]` : text;

/**
 * Keeps a tool result within the bound that workflow history can hold: content items in order while
 * they fit, a long text cut, then a note saying what was left out.
 */
export function boundResult(result: CallToolResult, maxBytes: number): CallToolResult {
  if (Buffer.byteLength(JSON.stringify(result)) <= maxBytes) return result;
  const kept: CallToolResult['content'] = [];
  let budget = maxBytes - 512;
  let dropped = 0;
  for (const item of result.content) {
    const size = Buffer.byteLength(JSON.stringify(item));
    if (size <= budget) {
      kept.push(item);
      budget -= size;
    } else if (item.type === 'text' && budget > 1024) {
      kept.push({ ...item, text: truncate(item.text, Math.floor(budget / 4)) });
      budget = 0;
    } else dropped += 1;
  }
  kept.push({
    type: 'text',
    text: `[The result was larger than ${maxBytes} bytes: ${dropped} item(s) and any structured content were left out.]`,
  });
  return { content: kept, isError: result.isError ?? false, _meta: { ...result._meta, 'platform/truncated': true } };
}

/** Statuses worth another attempt: the server may answer differently soon. 501, 505 and kin will not. */
const transientStatuses = [408, 425, 429, 500, 502, 503, 504];

const transientNetwork =
  /ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EAI_AGAIN|ENOTFOUND|socket hang up|fetch failed|other side closed|Connection closed|terminated/i;

/** The HTTP status an SDK error carries: an answer to a POST (or the probe), or the SSE stream's. */
function httpStatusOf(err: unknown): { status: number; body: string } | null {
  if (err instanceof SdkHttpError && err.status >= 400) {
    const text = typeof err.data.text === 'string' ? err.data.text : '';
    return { status: err.status, body: text || err.message.replace(/^Error POSTing to endpoint: /, '') };
  }
  // Without an auth provider a 401 surfaces as this, with no status field.
  if (err instanceof UnauthorizedError) return { status: 401, body: err.message };
  if (err instanceof SseError && typeof err.code === 'number' && err.code >= 400) return { status: err.code, body: err.message };
  return null;
}

/** Sorts an error from connecting or calling into retryable or final, with the status and body when a server answered. */
export function classify(err: unknown, stderrTail = ''): CallFailure {
  // A failed version probe wraps what the network said (the guard's refusal, a reset) as its cause.
  const cause = err instanceof SdkError && err.code === SdkErrorCode.EraNegotiationFailed ? (err.cause as unknown) : undefined;
  if (cause !== undefined && (cause as { code?: string })?.code) return classify(cause, stderrTail);
  const name = (err as Error)?.name ?? '';
  const message = err instanceof Error ? err.message : String(err);
  if ((err as { code?: string }).code === 'outbound_refused') return { retryable: false, kind: 'refused', message };
  if (err instanceof DiscoveryError) {
    const retryable = err.status !== undefined && transientStatuses.includes(err.status);
    return { retryable, kind: 'discovery', message, ...(err.status ? { status: err.status } : {}) };
  }
  const http = httpStatusOf(err);
  if (http) {
    return {
      retryable: transientStatuses.includes(http.status),
      kind: 'http_status',
      message: `The server answered HTTP ${http.status}.`,
      status: http.status,
      body: truncate(http.body, errorBodyBound),
    };
  }
  if (err instanceof SdkError) {
    if (err.code === SdkErrorCode.RequestTimeout) return { retryable: false, kind: 'timeout', message: err.message };
    if (err.code === SdkErrorCode.ConnectionClosed)
      return { retryable: true, kind: 'unavailable', message: withStderr(message, stderrTail) };
    if (err.code === SdkErrorCode.NotConnected || err.code === SdkErrorCode.SendFailed)
      return { retryable: true, kind: 'unavailable', message: withStderr(message, stderrTail) };
  }
  if (err instanceof ProtocolError) return { retryable: false, kind: 'protocol', message: err.message };
  const code = (err as { code?: string }).code;
  if (code === 'outbound_too_large')
    return { retryable: false, kind: 'protocol', message: `The server's answer was too large: ${message}` };
  // The transports' outbound bound covers connecting only (the call's own timeout covers the answer).
  if (code === 'outbound_timeout' || /Timeout/.test(name)) return { retryable: true, kind: 'unavailable', message };
  if (transientNetwork.test(message) || /spawn|ENOENT/.test(message)) {
    return { retryable: !/ENOENT/.test(message), kind: 'unavailable', message: withStderr(message, stderrTail) };
  }
  return { retryable: false, kind: 'protocol', message: withStderr(message, stderrTail) };
}

function withStderr(message: string, tail: string): string {
  return tail.trim()
    ? `${message}; the server's stderr ended with: ${truncate(tail.trim().slice(-errorBodyBound), errorBodyBound)}`
    : message;
}
