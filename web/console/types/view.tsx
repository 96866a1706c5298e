// The console's page body for an application/vnd.platform.view+json artifact (issue #36): the view's
// results, followed live (./view-stream), each a link to the artifact; its filter below, as saved.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import type { Artifact } from '../browse-api';
import { artifactPath, containerPath } from '../browse-api';
import { Problem } from '../commits';
import { follow } from '../router';
import { followView, type Status, type ViewResults } from './view-stream';

const statusLabel: Record<Status, string> = { connecting: 'Connecting…', live: 'Live', reconnecting: 'Reconnecting…', stopped: 'Stopped' };
const sortLabel: Record<string, string> = {
  updated_desc: 'most recently updated first',
  created_desc: 'newest first',
  title_asc: 'by title',
  position: 'in workspace order',
  relevance: 'by relevance',
};

/** The saved filter, as far as it reads (the server checked it; a page never trusts it beyond display). */
function savedDescription(content: string): string | null {
  try {
    const parsed = JSON.parse(content) as { description?: unknown };
    return typeof parsed.description === 'string' ? parsed.description : null;
  } catch {
    return null;
  }
}

function Sources({ results }: { results: ViewResults }) {
  return (
    <p class="meta" data-testid="view-sources">
      From{' '}
      {results.sources.map((s, i) => (
        <span key={s.id}>
          {i > 0 && ', '}
          {s.readable ? (
            <a href={containerPath(s.kind, s.id)} onClick={follow}>
              {s.name ?? s.id}
            </a>
          ) : (
            <span class="unreadable" title={s.id}>
              a {s.kind} you cannot read
            </span>
          )}
        </span>
      ))}
    </p>
  );
}

export function ViewBody({ artifact }: { artifact: Artifact }) {
  const [results, setResults] = useState<ViewResults | null>(null);
  const [status, setStatus] = useState<Status>('connecting');
  const [error, setError] = useState<string | null>(null);
  const [announcement, setAnnouncement] = useState('');
  // The view as saved: the page loaded one revision; an edit reaches the results live, and its text here too.
  const [saved, setSaved] = useState({ revision: artifact.revision, content: artifact.content });
  const liveRevision = results?.view.revision;
  useEffect(() => {
    if (liveRevision === undefined || liveRevision <= saved.revision) return;
    let current = true;
    api<Artifact>(`/artifacts/${encodeURIComponent(artifact.id)}`)
      .then((fresh) => {
        if (current && fresh.revision > saved.revision) setSaved({ revision: fresh.revision, content: fresh.content });
      })
      .catch(() => undefined); // the results stay right; the filter text is shown as loaded
    return () => {
      current = false;
    };
  }, [artifact.id, liveRevision, saved.revision]);

  useEffect(() => {
    const stop = new AbortController();
    let first = true;
    followView(
      artifact.id,
      {
        results: (next) => {
          setResults(next);
          if (!first) setAnnouncement(`Results updated: ${next.items.length} artifacts`);
          first = false;
        },
        status: (next, message) => {
          setStatus(next);
          setError(message ?? null);
        },
      },
      stop.signal,
    ).catch((err: Error) => {
      if (stop.signal.aborted) return;
      setStatus('stopped');
      setError(err.message);
    });
    return () => stop.abort();
  }, [artifact.id]);

  const description = savedDescription(saved.content);
  return (
    <section class="view-results artifacts" aria-labelledby="view-results-title">
      {description && <p>{description}</p>}
      <h2 id="view-results-title">
        Results{' '}
        <span class={`badge live-status-${status}`} data-testid="view-status">
          {statusLabel[status]}
        </span>
      </h2>
      <p class="visually-hidden" aria-live="polite" data-testid="view-announcement">
        {announcement}
      </p>
      <Problem error={error} />
      {results === null && !error && <p role="status">Loading…</p>}
      {results && (
        <>
          <Sources results={results} />
          <p class="meta" data-testid="view-summary">
            {results.items.length === 0
              ? 'Nothing matches yet.'
              : `${results.items.length}${results.more ? ` of more than ${results.limit}` : ''} ${results.items.length === 1 ? 'artifact' : 'artifacts'}, ${sortLabel[results.sort] ?? results.sort}.`}
          </p>
          {results.items.length > 0 && (
            <ol data-testid="view-results" aria-label="Artifacts this view matches">
              {results.items.map((item) => (
                <li key={item.id}>
                  <a href={artifactPath(item.id)} onClick={follow}>
                    {item.title || '(untitled)'}
                  </a>{' '}
                  <span class="meta">
                    {item.content_type}
                    {item.tags.length > 0 && ` · ${item.tags.join(', ')}`} · updated{' '}
                    <time dateTime={item.updated_at}>{new Date(item.updated_at).toLocaleString()}</time>
                  </span>
                </li>
              ))}
            </ol>
          )}
        </>
      )}
      <details>
        <summary>Filter</summary>
        <pre class="content json" data-testid="view-filter">
          {saved.content}
        </pre>
      </details>
    </section>
  );
}
