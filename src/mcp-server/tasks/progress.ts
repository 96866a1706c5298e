// Progress of a long tool call answered in the request (a client without tasks, or one whose call
// finished within the moment): when the client sent a progress token, `notifications/progress` says
// how long the call has been running, every two seconds, until it answers. The platform cannot know
// how far along an LLM or another server's tool is, so there is no `total`: only that it is alive.

const everyMs = 2000;

type Notify = (notification: { method: 'notifications/progress'; params: Record<string, unknown> }) => Promise<void>;

/** The request's progress token, if its `_meta` carries one. */
export function progressTokenOf(meta: unknown): string | number | undefined {
  if (typeof meta !== 'object' || meta === null) return undefined;
  const token = (meta as { progressToken?: unknown }).progressToken;
  return typeof token === 'string' || (typeof token === 'number' && Number.isFinite(token)) ? token : undefined;
}

/** Whether a JSON-RPC body is a tools/call that asks for progress. */
export function asksProgress(body: unknown): boolean {
  if (typeof body !== 'object' || body === null) return false;
  const { method, params } = body as { method?: unknown; params?: { _meta?: unknown } };
  return method === 'tools/call' && progressTokenOf(params?._meta) !== undefined;
}

/** Awaits `work`, telling the client it is still running while it does; a notification that fails is dropped. */
export async function withProgress<T>(
  work: Promise<T>,
  token: string | number,
  notify: Notify,
  what: string,
  gone: AbortSignal,
): Promise<T> {
  const started = Date.now();
  let step = 0;
  const timer = setInterval(() => {
    step += 1;
    const seconds = Math.round((Date.now() - started) / 1000);
    notify({
      method: 'notifications/progress',
      params: { progressToken: token, progress: step, message: `${what}: still running after ${seconds} s.` },
    }).catch(() => undefined);
  }, everyMs);
  // A client gone is told nothing more; the work itself goes on (nothing waits for its answer).
  const stop = () => clearInterval(timer);
  gone.addEventListener('abort', stop, { once: true });
  try {
    return await work;
  } finally {
    stop();
    gone.removeEventListener('abort', stop);
  }
}
