// The search page (issue #37), a chunk of its own: POST /artifacts/search with every control the API
// offers (boost preset, limit, aperture, candidates, containers, content types), its state in the
// address (`/console/search?q=…`, so back and forward work and a search can be shared). Typing searches
// after a pause; each result shows its title, type, container and a snippet with the query's words
// marked, how it was found in plain words, and "Why this result": the BM25 and vector ranks and the
// fused RRF score, explained. Everything the API says is rendered as text.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError, type Page } from './api';
import { artifactPath, containerPath, type Container } from './browse-api';
import { ContainerName } from './commits';
import { follow, navigate, useSearch } from './router';
import {
  explain,
  foundBy,
  hasText,
  markdownText,
  presets,
  readState,
  refinements,
  requestBody,
  searchPath,
  snippet,
  typeLabel,
  defaultLimit,
  type NumberField,
  type SearchAnswer,
  type SearchHit,
  type SearchState,
} from './search-api';

/** How long typing pauses before the search runs. */
const debounceMs = 300;

type Failure = { message: string; params: { name: string; reason: string }[] };

const failure = (err: Error): Failure => ({
  message: err.message,
  params: err instanceof ApiError ? ((err.problem.invalid_params as Failure['params'] | undefined) ?? []) : [],
});

/** An artifact's text for its snippet, read once a session. */
const texts = new Map<string, Promise<string>>();

function textOf(id: string): Promise<string> {
  let text = texts.get(id);
  if (!text) {
    text = api<{ content?: string; context?: { description?: unknown } }>(`/artifacts/${encodeURIComponent(id)}`).then(
      (a) => [typeof a.context?.description === 'string' ? a.context.description : '', a.content ?? ''].filter(Boolean).join(' — '),
      () => '',
    );
    texts.set(id, text);
  }
  return text;
}

export function SearchView() {
  const search = useSearch();
  const state = readState(search);
  const [text, setText] = useState(state.q);
  const [answer, setAnswer] = useState<SearchAnswer | null>(null);
  const [error, setError] = useState<Failure | null>(null);
  const [busy, setBusy] = useState(false);
  const timer = useRef<number | undefined>(undefined);
  // A burst of typing makes one history entry: the first change pushes, the next ones replace it.
  const typing = useRef(false);
  const input = useRef<HTMLInputElement>(null);
  const list = useRef<HTMLOListElement>(null);

  // What the box holds now: a control changed while typing searches for it too.
  const typed = useRef(text);
  typed.current = text;
  const go = (next: Partial<SearchState>, replace = false) => {
    clearTimeout(timer.current);
    navigate(searchPath({ ...readState(location.search), q: typed.current, ...next }), replace);
  };

  // The address changed (a search, back, forward, a shared link): the box shows its query.
  useEffect(() => {
    if (readState(search).q !== text) setText(readState(search).q);
  }, [search]);

  // The box has the focus when the page opens (autofocus does not apply to an element added later).
  useEffect(() => {
    input.current?.focus();
    return () => clearTimeout(timer.current);
  }, []);

  // The search the address holds, run; an answer that arrives after a newer search began is dropped.
  useEffect(() => {
    const current = readState(search);
    if (!current.q.trim()) {
      setAnswer(null);
      setError(null);
      setBusy(false);
      return;
    }
    let live = true;
    setBusy(true);
    api<SearchAnswer>('/artifacts/search', { method: 'POST', body: JSON.stringify(requestBody(current)) }).then(
      (found) => {
        if (!live) return;
        setAnswer(found);
        setError(null);
        setBusy(false);
      },
      (err: Error) => {
        if (!live) return;
        setAnswer(null);
        setError(failure(err));
        setBusy(false);
      },
    );
    return () => {
      live = false;
    };
  }, [search]);

  const onType = (value: string) => {
    setText(value);
    clearTimeout(timer.current);
    timer.current = setTimeout(() => {
      go({ q: value }, typing.current);
      typing.current = true;
    }, debounceMs) as unknown as number;
  };

  const submit = (event: Event) => {
    event.preventDefault();
    typing.current = false;
    if (text !== state.q) go({ q: text });
  };

  /** Arrow keys move between the results' links (and from the box to the first). */
  const arrows = (event: KeyboardEvent) => {
    if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return;
    const links = [...(list.current?.querySelectorAll<HTMLAnchorElement>('a.result-link') ?? [])];
    if (links.length === 0) return;
    const at = links.indexOf(document.activeElement as HTMLAnchorElement);
    event.preventDefault();
    if (at < 0) return event.key === 'ArrowDown' && links[0]!.focus();
    if (event.key === 'ArrowUp' && at === 0) return input.current?.focus();
    links[Math.min(links.length - 1, Math.max(0, at + (event.key === 'ArrowDown' ? 1 : -1)))]!.focus();
  };

  const q = state.q.trim();
  return (
    <article class="search-page" aria-labelledby="search-page-title">
      <h1 id="search-page-title">Search</h1>
      <form role="search" aria-label="Search artifacts" class="search-form" noValidate onSubmit={submit}>
        <label for="search-page-query">Search for</label>
        <div class="search-box">
          <input
            id="search-page-query"
            ref={input}
            type="search"
            maxLength={1000}
            autoComplete="off"
            value={text}
            aria-describedby="search-page-hint"
            onInput={(event) => onType((event.currentTarget as HTMLInputElement).value)}
            onKeyDown={(event) => {
              if (event.key === 'ArrowDown') arrows(event);
            }}
            onBlur={() => (typing.current = false)}
          />{' '}
          <button type="submit">Search</button>
        </div>
        <p id="search-page-hint" class="meta">
          Finds artifacts that use your words, and ones about the same thing in other words, in every workspace and collection you may
          search.
        </p>
        <Controls state={state} go={go} />
      </form>
      <p role="status" aria-live="polite" class="search-count" data-testid="search-count">
        {busy ? 'Searching…' : answer && q ? count(answer) : ''}
      </p>
      {error && <ProblemDetails failure={error} />}
      {!q && !error && <p class="meta">Type a few words to search.</p>}
      {answer && q && !error && (
        <Results
          answer={answer}
          state={state}
          listRef={list}
          onKeyDown={arrows}
          onEverywhere={() => go({ workspaces: [], collections: [], types: [] })}
        />
      )}
    </article>
  );
}

const count = (answer: SearchAnswer) =>
  `${answer.results.length} ${answer.results.length === 1 ? 'result' : 'results'} for “${answer.query}”`;

function ProblemDetails({ failure }: { failure: Failure }) {
  return (
    <div class="error search-error" role="alert" data-testid="search-error">
      <p>The search could not run: {failure.message}</p>
      {failure.params.length > 0 && (
        <ul aria-label="What to change">
          {failure.params.map((p) => (
            <li key={p.name}>
              {p.name}: {p.reason}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** GET /workspaces and /collections, their first pages: the containers a search may be narrowed to. */
function useContainers() {
  const [containers, setContainers] = useState<Container[] | null>(null);
  useEffect(() => {
    const read = (kind: 'workspace' | 'collection') =>
      api<Page<Container>>(`/${kind}s?limit=50`).then(
        (p) => p.items.map((c) => ({ ...c, kind })),
        () => [] as Container[],
      );
    void Promise.all([read('workspace'), read('collection')]).then(([w, c]) => setContainers([...w, ...c]));
  }, []);
  return containers;
}

function Controls({ state, go }: { state: SearchState; go: (next: Partial<SearchState>, replace?: boolean) => void }) {
  const containers = useContainers();
  const number = (field: NumberField) => ({
    value: state.numbers[field] ?? '',
    onChange: (event: Event) => go({ numbers: { ...state.numbers, [field]: (event.currentTarget as HTMLInputElement).value } }),
  });
  const chosen = new Set([...state.workspaces, ...state.collections]);
  const listed = new Set(containers?.map((c) => c.id));
  // Folded unless the search already uses one of them (a shared link, back): the box and the results come first.
  const changed = refinements(state);
  const [open] = useState(() => changed !== '');
  const toggle = (kind: 'workspace' | 'collection', id: string, on: boolean) => {
    const key = kind === 'workspace' ? 'workspaces' : 'collections';
    go({ [key]: on ? [...state[key], id] : state[key].filter((x) => x !== id) });
  };
  return (
    <details class="refine" open={open}>
      <summary>Ranking and filters{changed && <span class="meta"> ({changed})</span>}</summary>
      <div class="search-controls">
        <fieldset>
          <legend>Ranking</legend>
          {presets.map((p) => (
            <div key={p.name} class="choice">
              <label>
                <input
                  type="radio"
                  name="preset"
                  value={p.name}
                  checked={state.preset === p.name}
                  onChange={() => go({ preset: p.name })}
                  aria-describedby={`preset-${p.name}-hint`}
                />{' '}
                {p.label}
              </label>
              <span class="meta" id={`preset-${p.name}-hint`}>
                {p.hint}
              </span>
            </div>
          ))}
          <div class="choice">
            <label>
              <input
                type="checkbox"
                checked={state.aperture}
                onChange={(event) => go({ aperture: (event.currentTarget as HTMLInputElement).checked })}
                aria-describedby="aperture-hint"
              />{' '}
              Leave out loosely related meanings (aperture)
            </label>
            <span class="meta" id="aperture-hint">
              Keeps the closest meanings, up to where similarity drops off sharply; off keeps every neighbour found.
            </span>
          </div>
          <label class="inline">
            Results at most <input type="number" min={1} max={100} placeholder={defaultLimit} class="narrow" {...number('limit')} />
          </label>
        </fieldset>
        <fieldset>
          <legend>Where</legend>
          {containers === null && <p class="meta">Loading your workspaces and collections…</p>}
          {containers?.length === 0 && <p class="meta">You have no workspace or collection yet.</p>}
          {containers?.map((c) => (
            <label key={c.id} class="choice">
              <input
                type="checkbox"
                checked={chosen.has(c.id)}
                onChange={(e) => toggle(c.kind, c.id, (e.currentTarget as HTMLInputElement).checked)}
              />{' '}
              {c.name} <span class="meta">({c.kind})</span>
            </label>
          ))}
          {[...state.workspaces.map((id) => ['workspace', id] as const), ...state.collections.map((id) => ['collection', id] as const)]
            .filter(([, id]) => containers !== null && !listed.has(id))
            .map(([kind, id]) => (
              <label key={id} class="choice">
                <input type="checkbox" checked onChange={() => toggle(kind, id, false)} />{' '}
                <ContainerName kind={kind === 'workspace' ? 'workspaces' : 'collections'} id={id} /> <span class="meta">({kind})</span>
              </label>
            ))}
          <p class="meta">None ticked: everywhere you may search.</p>
          <label class="block">
            Only these content types{' '}
            <input
              type="text"
              class="types"
              placeholder="e.g. text/markdown, application/json"
              value={state.types.join(', ')}
              onChange={(event) =>
                go({
                  types: (event.currentTarget as HTMLInputElement).value
                    .split(',')
                    .map((t) => t.trim())
                    .filter(Boolean),
                })
              }
            />
          </label>
        </fieldset>
        <details class="advanced">
          <summary>Advanced ranking settings</summary>
          <p class="meta">Empty fields take the platform’s defaults.</p>
          <label class="block">
            Candidates each ranking considers{' '}
            <input type="number" min={1} max={1000} placeholder="100" class="narrow" {...number('candidates')} />
          </label>
          <label class="block">
            Lowest similarity kept{' '}
            <input type="number" min={-1} max={1} step={0.05} class="narrow" disabled={!state.aperture} {...number('min_score')} />
          </label>
          <label class="block">
            Always keep at least (neighbours){' '}
            <input type="number" min={1} max={1000} placeholder="5" class="narrow" disabled={!state.aperture} {...number('min_keep')} />
          </label>
          <label class="block">
            Fewest neighbours to look for a drop-off{' '}
            <input
              type="number"
              min={2}
              max={1000}
              placeholder="8"
              class="narrow"
              disabled={!state.aperture}
              {...number('min_candidates')}
            />
          </label>
          <label class="block">
            Flat below this spread of similarity{' '}
            <input
              type="number"
              min={0}
              max={2}
              step={0.01}
              placeholder="0.02"
              class="narrow"
              disabled={!state.aperture}
              {...number('flat_spread')}
            />
          </label>
        </details>
      </div>
    </details>
  );
}

function Results({
  answer,
  state,
  listRef,
  onKeyDown,
  onEverywhere,
}: {
  answer: SearchAnswer;
  state: SearchState;
  listRef: { current: HTMLOListElement | null };
  onKeyDown: (event: KeyboardEvent) => void;
  onEverywhere: () => void;
}) {
  const { lexical, semantic } = answer.retrievers;
  const narrowed = state.workspaces.length + state.collections.length + state.types.length > 0;
  if (answer.results.length === 0)
    return (
      <div class="search-empty" data-testid="search-empty">
        <p>Nothing matched “{answer.query}”.</p>
        <p class="meta">
          Try other or fewer words{state.aperture ? ', or leave in loosely related meanings (switch the aperture off)' : ''}.
        </p>
        {narrowed && (
          <button type="button" onClick={onEverywhere}>
            Search everywhere instead
          </button>
        )}
      </div>
    );
  return (
    <>
      <p class="meta" data-testid="search-summary">
        {lexical.candidates} {lexical.candidates === 1 ? 'artifact uses' : 'artifacts use'} your words (BM25, {answer.preset} preset);{' '}
        {semantic.kept} of the {semantic.candidates} closest in meaning kept (vectors, {semantic.embedder}
        {state.aperture ? '' : ', aperture off'}). {answer.took_ms} ms.
      </p>
      <ol class="search-results" aria-label="Search results" ref={listRef} onKeyDown={onKeyDown}>
        {answer.results.map((hit) => (
          <Result key={hit.id} hit={hit} answer={answer} />
        ))}
      </ol>
    </>
  );
}

function Snippet({ hit, query }: { hit: SearchHit; query: string }) {
  const [text, setText] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    if (hasText(hit.content_type)) void textOf(hit.id).then((t) => live && setText(t));
    return () => {
      live = false;
    };
  }, [hit.id]);
  if (!text) return null;
  return (
    <p class="snippet" data-testid="snippet">
      {snippet(/markdown/i.test(hit.content_type) ? markdownText(text) : text, query).map((part, i) =>
        part.mark ? <mark key={i}>{part.text}</mark> : part.text,
      )}
    </p>
  );
}

function Result({ hit, answer }: { hit: SearchHit; answer: SearchAnswer }) {
  const found = foundBy(hit);
  const why = explain(hit, answer);
  const containerKind = hit.container.kind === 'workspace' ? 'workspaces' : 'collections';
  return (
    <li class="search-result" data-artifact-id={hit.id}>
      <h2 class="result-title">
        <a class="result-link" href={artifactPath(hit.id)} onClick={follow}>
          {hit.title}
        </a>
      </h2>
      <p class="meta">
        <span class="type-label" title={hit.content_type}>
          {typeLabel(hit.content_type)}
        </span>{' '}
        in {hit.container.kind}{' '}
        <a href={containerPath(hit.container.kind, hit.container.id)} onClick={follow}>
          <ContainerName kind={containerKind} id={hit.container.id} />
        </a>
      </p>
      <Snippet hit={hit} query={answer.query} />
      <p>
        <span class={`found found-${found.key}`} data-testid="found-by">
          {found.label}
        </span>
      </p>
      <details class="why">
        <summary>Why this result</summary>
        <ul>
          {why.lines.map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
        <p data-testid="fused">{why.sum}</p>
      </details>
    </li>
  );
}
