// Following a view's results (GET /artifacts/{id}/results/stream) with fetch: EventSource cannot send
// the bearer token, and the token never goes in a URL. After a drop it reconnects with the last
// results' digest as Last-Event-ID (the server then sends only what changed) and a growing delay.
import { api, ApiError, currentTokens, type Me } from '../api';

export interface ViewItem {
  id: string;
  title: string;
  content_type: string;
  state: string;
  container: { kind: 'workspace' | 'collection'; id: string };
  tags: string[];
  revision: number;
  created_at: string;
  updated_at: string;
  score?: number;
}

export interface ViewResults {
  view: { id: string; title: string; revision: number };
  sort: string;
  limit: number;
  items: ViewItem[];
  more: boolean;
  sources: { kind: 'workspace' | 'collection'; id: string; readable: boolean; name?: string }[];
  digest: string;
  evaluated_at: string;
}

export type Status = 'connecting' | 'live' | 'reconnecting' | 'stopped';

export interface Handlers {
  results(results: ViewResults): void;
  status(status: Status, error?: string): void;
}

/** A bearer token good for a while: api() refreshes one that is about to expire (or was refused). */
async function bearer(refused: boolean): Promise<string> {
  const tokens = currentTokens();
  if (refused || !tokens || tokens.expiresAt - Date.now() < 30_000) await api<Me>('/me');
  const access = currentTokens()?.access;
  if (!access) throw new ApiError(401, 'Not signed in.');
  return access;
}

/** Reads Server-Sent Events from a response body: each message's id, event and data. */
async function readMessages(body: ReadableStream<Uint8Array>, onMessage: (id: string, event: string, data: string) => void) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, '\n');
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const fields: Record<string, string> = {};
      for (const line of buffer.slice(0, end).split('\n')) {
        const m = /^(id|event|data): ?(.*)$/.exec(line);
        if (m) fields[m[1]!] = m[1] === 'data' && fields.data !== undefined ? `${fields.data}\n${m[2]}` : m[2]!;
      }
      buffer = buffer.slice(end + 2);
      if (fields.data !== undefined) onMessage(fields.id ?? '', fields.event ?? 'message', fields.data);
    }
  }
}

/** The stream, again and again after drops (1 s, doubling to 30 s); ends when `stop` aborts or the view is gone. */
export async function followView(viewId: string, on: Handlers, stop: AbortSignal): Promise<void> {
  let last = '';
  let delay = 1000;
  let refused = false;
  while (!stop.aborted) {
    try {
      const res = await fetch(`/artifacts/${encodeURIComponent(viewId)}/results/stream`, {
        headers: {
          authorization: `Bearer ${await bearer(refused)}`,
          accept: 'text/event-stream',
          ...(last ? { 'last-event-id': last } : {}),
        },
        credentials: 'omit',
        cache: 'no-store',
        signal: stop,
      });
      refused = res.status === 401;
      if (res.status >= 400 && res.status < 500 && res.status !== 401 && res.status !== 429) {
        const problem = (await res.json().catch(() => ({}))) as { detail?: string };
        return on.status('stopped', problem.detail ?? `HTTP ${res.status}`);
      }
      if (res.ok && res.body) {
        on.status('live');
        delay = 1000;
        let ended: string | null = null;
        await readMessages(res.body, (id, event, data) => {
          if (event === 'error') ended = (JSON.parse(data) as { detail?: string }).detail ?? 'The view is no longer readable.';
          else if (event === 'results') {
            last = id;
            on.results(JSON.parse(data) as ViewResults);
          }
        });
        if (ended) return on.status('stopped', ended);
      } else await res.body?.cancel();
    } catch (err) {
      if (stop.aborted) return;
      if (err instanceof ApiError && err.status === 401) return on.status('stopped', err.message);
    }
    if (stop.aborted) return;
    on.status('reconnecting');
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(delay * 2, 30_000);
  }
}
