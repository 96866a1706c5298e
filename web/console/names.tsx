// Names for the ids provenance carries (issue #37): GET /names, asked once per id and batched (every
// name a page asks for in one turn goes in one request). The API answers null where the caller may not
// know a name; the console then says what it is ("another person", "an API key"), never the raw id.
import { useEffect, useState } from 'preact/hooks';
import { api, onSessionChange } from './api';

export type NameKind = 'people' | 'api_keys' | 'server_credentials' | 'oauth_clients' | 'artifacts';

interface Answer {
  people: { id: string; email: string | null; you: boolean }[];
  api_keys: { id: string; name: string | null }[];
  server_credentials: { id: string; name: string | null }[];
  oauth_clients: { id: string; name: string | null }[];
  artifacts: { id: string; title: string | null; content_type?: string; deleted?: true }[];
}

/** What the console shows for an id: its text, and for an artifact whether it is gone. */
export interface Name {
  text: string;
  known: boolean;
  you?: boolean;
  deleted?: boolean;
}

const fallback: Record<NameKind, string> = {
  people: 'another person',
  api_keys: 'an API key',
  server_credentials: 'a server credential',
  oauth_clients: 'an OAuth client',
  artifacts: 'an artifact you cannot see',
};

const cache = new Map<string, Promise<Name>>();
let queued: { kind: NameKind; id: string; resolve: (n: Name) => void }[] = [];

function named(kind: NameKind, answer: Answer, id: string): Name {
  if (kind === 'people') {
    const p = answer.people.find((x) => x.id === id);
    if (p?.you) return { text: 'you', known: true, you: true };
    return p?.email ? { text: p.email, known: true } : { text: fallback.people, known: false };
  }
  if (kind === 'artifacts') {
    const a = answer.artifacts.find((x) => x.id === id);
    if (!a?.title) return { text: '(deleted or hidden artifact)', known: false };
    return a.deleted ? { text: `(deleted artifact) ${a.title}`, known: true, deleted: true } : { text: a.title, known: true };
  }
  const found = answer[kind].find((x) => x.id === id);
  return found?.name ? { text: found.name, known: true } : { text: fallback[kind], known: false };
}

const perRequest = 100;

async function flush(): Promise<void> {
  const batch = queued;
  queued = [];
  for (let i = 0; i < batch.length; i += perRequest) {
    const part = batch.slice(i, i + perRequest);
    const params = new URLSearchParams();
    for (const kind of ['people', 'api_keys', 'server_credentials', 'oauth_clients', 'artifacts'] as const) {
      const ids = part.filter((q) => q.kind === kind).map((q) => q.id);
      if (ids.length) params.set(kind, ids.join(','));
    }
    try {
      const answer = await api<Answer>(`/names?${params.toString()}`);
      for (const q of part) q.resolve(named(q.kind, answer, q.id));
    } catch {
      for (const q of part) {
        cache.delete(`${q.kind}:${q.id}`);
        q.resolve({ text: fallback[q.kind], known: false });
      }
    }
  }
}

/** The name of an id, from the batch it joins (ids asked in the same turn share one request). */
export function nameOf(kind: NameKind, id: string): Promise<Name> {
  const key = `${kind}:${id}`;
  let found = cache.get(key);
  if (!found) {
    found = new Promise<Name>((resolve) => {
      if (queued.length === 0) queueMicrotask(() => void flush());
      queued.push({ kind, id, resolve });
    });
    cache.set(key, found);
  }
  return found;
}

// Another person signing in may know other names.
onSessionChange(() => cache.clear());

export function useName(kind: NameKind, id: string | undefined): Name | null {
  const [name, setName] = useState<Name | null>(null);
  useEffect(() => {
    if (!id) return;
    let live = true;
    setName(null);
    void nameOf(kind, id).then((n) => live && setName(n));
    return () => {
      live = false;
    };
  }, [kind, id]);
  return name;
}

/** A name in the page: the text, with the id as its tooltip; "…" while it is looked up. */
export function NameOf({ kind, id }: { kind: NameKind; id: string }) {
  const name = useName(kind, id);
  return (
    <span class={`name name-${kind}${name?.known === false ? ' name-unknown' : ''}`} title={id} data-testid={`name-${kind}`}>
      {name?.text ?? '…'}
    </span>
  );
}
