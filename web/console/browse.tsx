// Browsing (issue #20): the person's workspaces and collections, one of them with its artifacts, and
// search within it showing each result's fused score and the rank each retriever gave it.
import { useEffect, useState } from 'preact/hooks';
import { api } from './api';
import { artifactPath, containerPath, type Artifact, type Container, type ContainerKind, type SearchResponse } from './browse-api';
import { Problem } from './commits';
import { WorkspaceEvents } from './events';
import { WorkspaceImports } from './imports';
import { usePaged } from './paged';
import { follow } from './router';
import { lazyComponent } from './lazy';

const plural = { workspace: 'Workspaces', collection: 'Collections' } as const;

function ContainersList({ kind }: { kind: ContainerKind }) {
  const { items, error, loading, more } = usePaged<Container>(kind === 'workspace' ? '/workspaces' : '/collections');
  const label = plural[kind];
  return (
    <section aria-labelledby={`${kind}s-title`}>
      <h2 id={`${kind}s-title`}>{label}</h2>
      <Problem error={error} />
      {!error && items === null && <p role="status">Loading…</p>}
      {items?.length === 0 && <p>You have no {kind}s yet.</p>}
      {items && items.length > 0 && (
        <ul class={`${kind}s containers`} aria-label={`Your ${kind}s`}>
          {items.map((c) => (
            <li key={c.id}>
              <a href={containerPath(kind, c.id)} onClick={follow}>
                {c.name}
              </a>
              {c.description && <span class="meta"> {c.description}</span>}
            </li>
          ))}
        </ul>
      )}
      {more && (
        <button type="button" disabled={loading} onClick={more}>
          Show more {kind}s
        </button>
      )}
    </section>
  );
}

/** The overview's lists: workspaces (drafts) and collections (committed knowledge). */
export function WorkspacesList() {
  return (
    <>
      <ContainersList kind="workspace" />
      <ContainersList kind="collection" />
    </>
  );
}

/** A container's artifacts (./artifact-list): a chunk of its own, with the type badges and names it shows. */
const ArtifactsList = lazyComponent(() => import('./artifact-list').then((m) => m.ArtifactsList), 'artifact list');

const score = (n: number, digits = 4) => n.toFixed(digits);

/** POST /artifacts/search narrowed to this workspace or collection. */
function Search({ kind, id, name }: { kind: ContainerKind; id: string; name: string }) {
  const [query, setQuery] = useState('');
  const [answer, setAnswer] = useState<SearchResponse | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = (event: Event) => {
    event.preventDefault();
    const text = query.trim();
    if (!text) return setError('Type something to search for.');
    setBusy(true);
    const body = { query: text, limit: 20, [kind === 'workspace' ? 'workspace_ids' : 'collection_ids']: [id] };
    api<SearchResponse>('/artifacts/search', { method: 'POST', body: JSON.stringify(body) }).then(
      (found) => {
        setAnswer(found);
        setError(null);
        setBusy(false);
      },
      (err: Error) => {
        setError(err.message);
        setBusy(false);
      },
    );
  };
  return (
    <section aria-labelledby="search-title">
      <h2 id="search-title">Search</h2>
      <form role="search" aria-label={`Search ${name}`} onSubmit={submit} class="search">
        <label for="search-query">Search this {kind}</label>{' '}
        <input
          id="search-query"
          type="search"
          maxLength={1000}
          value={query}
          onInput={(event) => setQuery((event.currentTarget as HTMLInputElement).value)}
        />{' '}
        <button type="submit" disabled={busy}>
          Search
        </button>
      </form>
      <p>
        <a href={`/console/search?${new URLSearchParams({ q: query, [kind]: id })}`} onClick={follow}>
          Search with more options
        </a>
      </p>
      <Problem error={error} />
      {answer && <Results answer={answer} />}
    </section>
  );
}

function Results({ answer }: { answer: SearchResponse }) {
  const { lexical, semantic } = answer.retrievers;
  return (
    <>
      <p role="status" class="meta">
        {answer.results.length} {answer.results.length === 1 ? 'result' : 'results'} for “{answer.query}” in {answer.took_ms} ms (
        {answer.preset}; BM25 {lexical.candidates} candidates, vector {semantic.kept} of {semantic.candidates} kept, {semantic.embedder})
      </p>
      {answer.results.length > 0 && (
        <table class="results" aria-label="Search results">
          <thead>
            <tr>
              <th scope="col">Artifact</th>
              <th scope="col">Type</th>
              <th scope="col">Fused score (RRF)</th>
              <th scope="col">BM25 rank (score)</th>
              <th scope="col">Vector rank (similarity)</th>
            </tr>
          </thead>
          <tbody>
            {answer.results.map((r) => (
              <tr key={r.id} data-artifact-id={r.id}>
                <th scope="row">
                  <a href={artifactPath(r.id)} onClick={follow}>
                    {r.title}
                  </a>
                </th>
                <td>{r.content_type}</td>
                <td data-testid="fused">{score(r.score)}</td>
                <td data-testid="lexical">
                  {r.retrievers.lexical ? `${r.retrievers.lexical.rank} (${score(r.retrievers.lexical.score, 3)})` : '—'}
                </td>
                <td data-testid="semantic">
                  {r.retrievers.semantic
                    ? r.retrievers.semantic.imputed
                      ? `${r.retrievers.semantic.rank} (embedding pending)`
                      : `${r.retrievers.semantic.rank} (${score(r.retrievers.semantic.score, 3)})`
                    : '—'}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

function ContainerView({ kind, id }: { kind: ContainerKind; id: string }) {
  const [container, setContainer] = useState<Container | null>(null);
  const [error, setError] = useState<string | null>(null);
  // Bumped when an import finishes: the artifacts list is read again, with what it created.
  const [imported, setImported] = useState(0);
  useEffect(() => {
    api<Container>(`/${kind}s/${encodeURIComponent(id)}`).then(setContainer, (err: Error) => setError(err.message));
  }, [kind, id]);
  return (
    <article aria-labelledby="container-title" class={`container-view ${kind}-view`}>
      <p>
        <a href="/console/" onClick={follow}>
          ← Overview
        </a>
      </p>
      <h1 id="container-title">
        {kind === 'workspace' ? 'Workspace' : 'Collection'}: {container?.name ?? id}
      </h1>
      <Problem error={error} />
      {!error && !container && <p role="status">Loading…</p>}
      {container?.description && <p class="description">{container.description}</p>}
      {container && (
        <>
          <Search kind={kind} id={id} name={container.name} />
          <ArtifactsList key={imported} kind={kind} id={id} />
          {kind === 'workspace' && <WorkspaceImports workspaceId={id} onFinished={() => setImported((n) => n + 1)} />}
          {kind === 'workspace' && <WorkspaceEvents workspaceId={id} />}
        </>
      )}
    </article>
  );
}

export function WorkspaceView({ id }: { id: string }) {
  return <ContainerView kind="workspace" id={id} />;
}

export function CollectionView({ id }: { id: string }) {
  return <ContainerView kind="collection" id={id} />;
}
