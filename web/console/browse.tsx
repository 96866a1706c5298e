// Browsing (issue #20): the person's workspaces, one workspace or collection with its artifacts, and
// search with each result's retriever ranks. (Skeleton: filled in by the browse work.)
import { useEffect, useState } from 'preact/hooks';
import { api, type Page, type Workspace } from './api';
import { Problem } from './commits';
import { follow } from './router';

export function WorkspacesList() {
  const [workspaces, setWorkspaces] = useState<Workspace[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api<Page<Workspace>>('/workspaces?limit=100').then(
      (page) => setWorkspaces(page.items),
      (err: Error) => setError(err.message),
    );
  }, []);
  return (
    <section aria-labelledby="workspaces-title">
      <h2 id="workspaces-title">Workspaces</h2>
      <Problem error={error} />
      {!error && workspaces === null && <p role="status">Loading…</p>}
      {workspaces?.length === 0 && <p>You have no workspaces yet.</p>}
      {workspaces && workspaces.length > 0 && (
        <ul class="workspaces" aria-label="Your workspaces">
          {workspaces.map((w) => (
            <li key={w.id}>
              <a href={`/console/workspaces/${encodeURIComponent(w.id)}`} onClick={follow}>
                {w.name}
              </a>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

export function WorkspaceView({ id }: { id: string }) {
  return <h1>Workspace {id}</h1>;
}

export function CollectionView({ id }: { id: string }) {
  return <h1>Collection {id}</h1>;
}
