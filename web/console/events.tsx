// A workspace's events as they happen (issue #20): the latest page from GET /workspaces/{id}/events,
// then live from GET /workspaces/{id}/events/stream, read with fetch (EventSource cannot send the
// bearer token, and the token never goes in a URL). After a drop it reconnects with Last-Event-ID and
// a growing delay. New events are announced politely; everything the API says is text. Older events
// are pages of their own (issue #37), their cursors in the address (`?events=…`, paged.ts): "Older"
// and "Newer" move through them, and only the newest page is live.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError, currentTokens, type Me, type Page } from './api';
import { ContainerName, Problem } from './commits';
import { NameOf } from './names';
import { cursorTrail, usePageAt, withTrail } from './paged';
import { follow, useSearch } from './router';

export interface WorkspaceEvent {
  id: string;
  kind: 'artifact_created' | 'artifact_updated' | 'artifact_deleted';
  workspace_id: string;
  artifact_id: string;
  actor: string;
  occurred_at: string;
  recorded_at: string;
  changed?: string[];
}

type Status = 'connecting' | 'live' | 'reconnecting' | 'stopped';

/** The position before every event: an empty workspace's stream starts there, so nothing recorded meanwhile is missed. */
const beforeAllEvents = '00000000-0000-0000-0000-000000000000';
const shownEvents = 50;
const kindLabel: Record<string, string> = { artifact_created: 'created', artifact_updated: 'updated', artifact_deleted: 'deleted' };
const statusLabel: Record<Status, string> = { connecting: 'Connecting…', live: 'Live', reconnecting: 'Reconnecting…', stopped: 'Stopped' };

interface Handlers {
  /** The latest page, newest first (first load, and after an overflow), and the cursor of the page before it. */
  page(events: WorkspaceEvent[], older: string | null): void;
  event(event: WorkspaceEvent): void;
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

const eventsPath = (workspaceId: string) => `/workspaces/${encodeURIComponent(workspaceId)}/events`;
const loadPage = (workspaceId: string) => api<Page<WorkspaceEvent>>(`${eventsPath(workspaceId)}?limit=${shownEvents}`);

/** The page, then the stream, again and again after drops (1 s, doubling to 30 s); ends when `stop` aborts. */
async function watch(workspaceId: string, on: Handlers, stop: AbortSignal): Promise<void> {
  const first = await loadPage(workspaceId);
  on.page(first.items, first.next_cursor);
  let last = first.items[0]?.id ?? beforeAllEvents;
  let delay = 1000;
  let refused = false;
  while (!stop.aborted) {
    try {
      const res = await fetch(`/workspaces/${encodeURIComponent(workspaceId)}/events/stream`, {
        headers: { authorization: `Bearer ${await bearer(refused)}`, 'last-event-id': last, accept: 'text/event-stream' },
        credentials: 'omit',
        cache: 'no-store',
        signal: stop,
      });
      refused = res.status === 401;
      if (res.status === 403 || res.status === 404) {
        const problem = (await res.json().catch(() => ({}))) as { detail?: string };
        return on.status('stopped', problem.detail ?? `HTTP ${res.status}`);
      }
      if (res.ok && res.body) {
        on.status('live');
        delay = 1000;
        await readMessages(res.body, (id, event, data) => {
          if (id) last = id;
          if (event === 'overflow')
            void loadPage(workspaceId).then(
              (p) => on.page(p.items, p.next_cursor),
              () => undefined,
            );
          else on.event(JSON.parse(data) as WorkspaceEvent);
        });
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

function describe(event: WorkspaceEvent): string {
  return `Artifact ${kindLabel[event.kind] ?? event.kind}${event.changed?.length ? ` (${event.changed.join(', ')})` : ''}`;
}

/** The events, newest first: each with its kind, the artifact, who and when. */
function EventList({ events, me, label }: { events: WorkspaceEvent[]; me: string | null; label: string }) {
  return (
    <ol class="event-list" aria-label={label}>
      {events.map((e) => (
        <li key={e.id} class={`event event-${e.kind}`}>
          <span class="event-kind">{describe(e)}</span>{' '}
          <a href={`/console/artifacts/${encodeURIComponent(e.artifact_id)}`} onClick={follow}>
            <ContainerName kind="artifacts" id={e.artifact_id} />
          </a>{' '}
          <span class="meta">
            by {e.actor === me ? 'you' : <NameOf kind="people" id={e.actor} />},{' '}
            <time dateTime={e.occurred_at}>{new Date(e.occurred_at).toLocaleString()}</time>
          </span>
        </li>
      ))}
    </ol>
  );
}

/** The newest page, then each event as it is recorded (the list grows: the cursor to older events stays right). */
function LiveEvents({ workspaceId, me, onOlder }: { workspaceId: string; me: string | null; onOlder: (cursor: string | null) => void }) {
  const [events, setEvents] = useState<WorkspaceEvent[] | null>(null);
  const [status, setStatus] = useState<Status>('connecting');
  const [error, setError] = useState<string | null>(null);
  const [announcement, setAnnouncement] = useState('');

  useEffect(() => {
    const stop = new AbortController();
    const handlers: Handlers = {
      page: (page, older) => {
        setEvents(page);
        onOlder(older);
      },
      event: (event) => {
        setEvents((before) => [event, ...(before ?? []).filter((e) => e.id !== event.id)]);
        setAnnouncement(`New event: ${describe(event).toLowerCase()}`);
      },
      status: (next, message) => {
        setStatus(next);
        setError(message ?? null);
      },
    };
    watch(workspaceId, handlers, stop.signal).catch((err: Error) => {
      if (stop.signal.aborted) return;
      setStatus('stopped');
      setError(err.message);
    });
    return () => stop.abort();
  }, [workspaceId]);

  return (
    <>
      <p class="events-where">
        <span class={`live-status live-status-${status}`} data-testid="events-status">
          {statusLabel[status]}
        </span>
      </p>
      <p class="visually-hidden" aria-live="polite" data-testid="events-announcement">
        {announcement}
      </p>
      <Problem error={error} />
      {events === null && !error && <p role="status">Loading…</p>}
      {events?.length === 0 && <p>No events yet.</p>}
      {events && events.length > 0 && <EventList events={events} me={me} label="Workspace events, newest first" />}
    </>
  );
}

/** A page of older events at `cursor`: not live. */
function OlderEvents({
  workspaceId,
  cursor,
  depth,
  me,
  onOlder,
}: {
  workspaceId: string;
  cursor: string;
  depth: number;
  me: string | null;
  onOlder: (cursor: string | null) => void;
}) {
  const { page, error } = usePageAt<WorkspaceEvent>(eventsPath(workspaceId), cursor, shownEvents);
  const next = page?.next_cursor ?? null;
  useEffect(() => onOlder(next), [next]);
  return (
    <>
      <p class="events-where" data-testid="events-page">
        Older events, page {depth + 1} (not live)
      </p>
      <Problem error={error} />
      {!page && !error && <p role="status">Loading…</p>}
      {page?.items.length === 0 && <p>No older events.</p>}
      {page && page.items.length > 0 && <EventList events={page.items} me={me} label="Older workspace events, newest first" />}
    </>
  );
}

const trailParam = 'events';

export function WorkspaceEvents({ workspaceId }: { workspaceId: string }) {
  const trail = cursorTrail(useSearch(), trailParam);
  const [me, setMe] = useState<string | null>(null);
  const [older, setOlder] = useState<string | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  // Moved by a click on "Older" or "Newer": the heading takes the focus once the page shows.
  const moved = useRef(false);
  const at = trail.join('.');

  useEffect(() => {
    api<Me>('/me').then(
      (m) => setMe(m.id),
      () => setMe(null),
    );
  }, []);

  useEffect(() => {
    setOlder(null);
    if (moved.current) heading.current?.focus();
    moved.current = false;
  }, [at]);

  const go = (event: MouseEvent) => {
    moved.current = true;
    follow(event);
  };

  return (
    <section class="events" aria-labelledby="events-title">
      <h2 id="events-title" ref={heading} tabIndex={-1}>
        Events
      </h2>
      {trail.length === 0 ? (
        <LiveEvents workspaceId={workspaceId} me={me} onOlder={setOlder} />
      ) : (
        <OlderEvents key={at} workspaceId={workspaceId} cursor={trail.at(-1)!} depth={trail.length} me={me} onOlder={setOlder} />
      )}
      {(trail.length > 0 || older) && (
        <nav class="pager" aria-label="Event pages">
          {trail.length > 1 && (
            <a href={withTrail(trailParam, [])} onClick={go}>
              Newest events
            </a>
          )}{' '}
          {trail.length > 0 && (
            <a href={withTrail(trailParam, trail.slice(0, -1))} onClick={go} rel="prev">
              Newer events
            </a>
          )}{' '}
          {older && (
            <a href={withTrail(trailParam, [...trail, older])} onClick={go} rel="next">
              Older events
            </a>
          )}
        </nav>
      )}
    </section>
  );
}
