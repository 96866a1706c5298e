import type { ServerResponse } from 'node:http';

// A web Response (what the SDK's handlers answer) written to Node's response: the one place that
// knows how a streamed answer ends when its client goes. /mcp's answers (server.ts) and
// subscriptions/listen streams (subscriptions/serve.ts) both go through it.

/** The client reads too slowly: its buffer stayed full past the drain timeout. */
export class SlowReader extends Error {}

/** Waits until the client's buffer drains, it leaves, or the drain timeout passes (SlowReader). */
function drained(res: ServerResponse, timeoutMs: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (res.destroyed || res.closed) return resolve(); // gone already: its 'close' will not come again
    const done = (err?: Error) => {
      clearTimeout(timer);
      res.off('drain', ok);
      res.off('close', ok);
      if (err) reject(err);
      else resolve();
    };
    const ok = () => done();
    const timer = setTimeout(() => done(new SlowReader()), timeoutMs);
    res.once('drain', ok);
    res.once('close', ok);
  });
}

/**
 * Writes the handler's answer: a JSON body whole, with its length; an SSE stream as it comes, until it
 * ends or `stop` aborts. True when it was a stream. The stream is cancelled here rather than left to
 * the web Request's signal: that signal follows `stop` only while the Request object lives (undici
 * holds the link weakly and drops it when the Request is collected), and the SDK keeps the signal, not
 * the Request. So after a garbage collection an abort would no longer reach the SDK's stream.
 */
export async function writeWebResponse(
  response: Response,
  res: ServerResponse,
  stop: AbortSignal,
  drainTimeoutMs: number,
): Promise<boolean> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  if (!response.body || !headers['content-type']?.startsWith('text/event-stream')) {
    const body = Buffer.from(await response.arrayBuffer());
    res.writeHead(response.status, { ...headers, 'content-length': String(body.length) });
    res.end(body);
    return false;
  }
  res.writeHead(response.status, headers);
  const reader = response.body.getReader();
  // Cancelling ends a pending read at once (done) and runs the SDK's teardown.
  const cancel = () => void reader.cancel().catch(() => undefined);
  if (stop.aborted) cancel();
  else stop.addEventListener('abort', cancel, { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || res.destroyed) break;
      if (!res.write(value)) await drained(res, drainTimeoutMs);
    }
  } finally {
    stop.removeEventListener('abort', cancel);
    cancel(); // a stream left early (slow reader, client gone) is let go too
  }
  return true;
}
