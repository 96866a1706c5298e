// The console's page body for an application/vnd.platform.stream+json artifact (issue #36): the
// stream's configuration (its key is a secret reference, never shown), its live status polled while
// the page is open, start and stop, where to publish, the latest still, and what was recorded as
// links to the artifacts.
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../api';
import type { Artifact } from '../browse-api';
import { artifactPath } from '../browse-api';
import { follow } from '../router';

type State = 'idle' | 'starting' | 'listening' | 'connecting' | 'receiving' | 'ended' | 'failed';

/** GET /artifacts/{id}/status. */
export interface StreamStatus {
  stream_id: string;
  state: State;
  session_id: string | null;
  ingest_url: string | null;
  started_at: string | null;
  ends_by: string | null;
  ended_at: string | null;
  counts: { takes: number; segments: number; stills: number; metadata: number; refused: number; too_large: number };
  recorded: { segments: string[]; stills: string[]; metadata: string[] };
  error: string | null;
}

interface Config {
  description?: string;
  key_secret_id?: string;
  source?: { mode?: string; url?: string };
  record?: { segments?: { seconds: number }; stills?: { every_seconds: number }; metadata?: boolean };
  max_duration_seconds?: number;
}

const stateLabel: Record<State, string> = {
  idle: 'Not started',
  starting: 'Starting…',
  listening: 'Listening for a publisher',
  connecting: 'Connecting to the source',
  receiving: 'Receiving and recording',
  ended: 'Ended',
  failed: 'Failed',
};
const live = (s: State) => s === 'starting' || s === 'listening' || s === 'connecting' || s === 'receiving';

function configOf(content: string): Config {
  try {
    const parsed = JSON.parse(content) as unknown;
    return parsed && typeof parsed === 'object' ? (parsed as Config) : {};
  } catch {
    return {};
  }
}

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '—');

/** The still's JPEG bytes (stored base64) as an object URL for an <img>; revoked when replaced. */
function useStill(id: string | undefined): string | null {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    if (!id) return;
    let made: string | null = null;
    let cancelled = false;
    api<Artifact>(`/artifacts/${encodeURIComponent(id)}`)
      .then((a) => {
        if (cancelled || a.content_type !== 'image/jpeg') return;
        const bytes = Uint8Array.from(atob(a.content), (c) => c.charCodeAt(0));
        made = URL.createObjectURL(new Blob([bytes], { type: 'image/jpeg' }));
        setUrl(made);
      })
      .catch(() => {});
    return () => {
      cancelled = true;
      if (made) URL.revokeObjectURL(made);
    };
  }, [id]);
  return url;
}

function Recorded({ label, ids, name }: { label: string; ids: string[]; name: (i: number) => string }) {
  if (ids.length === 0) return null;
  return (
    <section>
      <h3>{label}</h3>
      <ul aria-label={label} class="recorded">
        {ids.map((id, i) => (
          <li key={id}>
            <a href={artifactPath(id)} onClick={follow}>
              {name(i)}
            </a>
          </li>
        ))}
      </ul>
    </section>
  );
}

export function StreamBody({ artifact }: { artifact: Artifact }) {
  const config = configOf(artifact.content);
  const [status, setStatus] = useState<StreamStatus | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [tick, setTick] = useState(0);

  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    /** The message a failed poll showed: cleared by the next poll that succeeds (an action's error stays). */
    let pollFailed: string | null = null;
    const poll = async () => {
      try {
        const next = await api<StreamStatus>(`/artifacts/${encodeURIComponent(artifact.id)}/status`);
        if (stopped) return;
        setStatus(next);
        if (pollFailed !== null) {
          const shown = pollFailed;
          pollFailed = null;
          setError((e) => (e === shown ? null : e));
        }
        // Every 2 s while live, every 15 s otherwise (a session started elsewhere shows up).
        timer = setTimeout(poll, live(next.state) ? 2000 : 15_000);
      } catch (err) {
        if (stopped) return;
        pollFailed = (err as Error).message;
        setError(pollFailed);
        timer = setTimeout(poll, 15_000);
      }
    };
    void poll();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [artifact.id, tick]);

  const act = async (op: 'start' | 'stop') => {
    setBusy(true);
    setError(null);
    try {
      setStatus(await api<StreamStatus>(`/artifacts/${encodeURIComponent(artifact.id)}/op/${op}`, { method: 'POST', body: '{}' }));
    } catch (err) {
      setError(err instanceof ApiError ? err.message : String(err));
    } finally {
      setBusy(false);
      setTick((t) => t + 1);
    }
  };

  const still = useStill(status?.recorded.stills.at(-1));
  const record = config.record ?? {};
  const keeps = [
    record.segments && `segments of about ${record.segments.seconds} s (MPEG-TS)`,
    record.stills && `a still every ${record.stills.every_seconds} s (JPEG)`,
    record.metadata !== false && 'metadata per take',
  ].filter(Boolean);
  const state = status?.state ?? 'idle';
  const inWorkspace = artifact.container === 'workspace';

  return (
    <div class="stream">
      <p class="meta">
        RTMP stream · <span data-testid="stream-state">{status ? stateLabel[state] : 'Loading…'}</span>
      </p>
      {config.description && <p>{config.description}</p>}
      {inWorkspace && (
        <p class="actions">
          {!live(state) ? (
            <button type="button" disabled={busy || !status} onClick={() => void act('start')}>
              Start recording
            </button>
          ) : (
            <button type="button" disabled={busy} onClick={() => void act('stop')}>
              Stop recording
            </button>
          )}
        </p>
      )}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {status?.error && <p class="error">{state === 'failed' ? `The session failed: ${status.error}` : status.error}</p>}
      {status?.ingest_url && (
        <section>
          <h3>Publish</h3>
          <p>
            Server: <code data-testid="stream-ingest-url">{status.ingest_url}</code>
          </p>
          <p>
            Stream key: the value of your secret <code>{config.key_secret_id}</code> (never shown here). For example:{' '}
            <code>ffmpeg -re -i input.mp4 -c:v libx264 -g 60 -c:a aac -f flv {status.ingest_url}/YOUR_STREAM_KEY</code>
          </p>
        </section>
      )}
      {status && status.state !== 'idle' && (
        <dl class="stream-facts">
          <dt>Started</dt>
          <dd>{when(status.started_at)}</dd>
          <dt>{status.ended_at ? 'Ended' : 'Ends by'}</dt>
          <dd>{when(status.ended_at ?? status.ends_by)}</dd>
          <dt>Recorded</dt>
          <dd data-testid="stream-counts">
            {status.counts.takes} takes, {status.counts.segments} segments, {status.counts.stills} stills, {status.counts.metadata} metadata
            {status.counts.refused > 0 && `, ${status.counts.refused} publishers refused`}
            {status.counts.too_large > 0 && `, ${status.counts.too_large} files too large to keep`}
          </dd>
        </dl>
      )}
      {still && (
        <figure class="media media-image">
          <img src={still} alt="The latest still" />
          <figcaption>The latest still</figcaption>
        </figure>
      )}
      {status && (
        <>
          <Recorded label="Stills" ids={status.recorded.stills} name={(i) => `Still ${i + 1}`} />
          <Recorded label="Segments" ids={status.recorded.segments} name={(i) => `Segment ${i + 1}`} />
          <Recorded label="Metadata" ids={status.recorded.metadata} name={(i) => `Metadata ${i + 1}`} />
        </>
      )}
      <section>
        <h3>Configuration</h3>
        <p>
          {config.source?.mode === 'pull' ? `Pulls ${config.source.url ?? 'its source'}` : 'Push over RTMP'}; keeps{' '}
          {keeps.length ? keeps.join(', ') : 'nothing'}; a session ends after {Math.round((config.max_duration_seconds ?? 3600) / 60)} min.
        </p>
      </section>
    </div>
  );
}
