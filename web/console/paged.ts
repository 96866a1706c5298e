// A paged list of the API's (`{items, next_cursor}`), as the console's lists read it.
import { useEffect, useState } from 'preact/hooks';
import { api, type Page } from './api';

/** A paged list from the API: the first page at once, the next ones on demand. */
export function usePaged<T>(path: string) {
  const [items, setItems] = useState<T[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const load = (after: string | null) => {
    setLoading(true);
    const query = new URLSearchParams({ limit: '50' });
    if (after) query.set('cursor', after);
    api<Page<T>>(`${path}${path.includes('?') ? '&' : '?'}${query}`).then(
      (page) => {
        setItems((before) => [...(after ? (before ?? []) : []), ...page.items]);
        setCursor(page.next_cursor);
        setError(null);
        setLoading(false);
      },
      (err: Error) => {
        setError(err.message);
        setLoading(false);
      },
    );
  };
  useEffect(() => load(null), [path]);
  return { items, error, loading, more: cursor ? () => load(cursor) : null, reload: () => load(null) };
}

/**
 * Pages kept in the address (issue #37): `?<param>=<c1>.<c2>…`, the cursors followed from the newest
 * page, so a page can be shared and back, forward and "Newer" all work with an API whose cursors only
 * go one way. Cursors are base64url, which never holds a dot.
 */
export function cursorTrail(search: string, param: string): string[] {
  return (new URLSearchParams(search).get(param) ?? '').split('.').filter(Boolean);
}

/** The address of the same page with `trail` as its cursors (none: the newest page). */
export function withTrail(param: string, trail: string[]): string {
  const params = new URLSearchParams(location.search);
  if (trail.length) params.set(param, trail.join('.'));
  else params.delete(param);
  const query = params.toString();
  return `${location.pathname}${query ? `?${query}` : ''}`;
}

/** One page from the API at `cursor` (null: none read): its items, and the cursor of the next page. */
export function usePageAt<T>(path: string, cursor: string | null, limit: number) {
  const [page, setPage] = useState<Page<T> | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (cursor === null) return;
    let live = true;
    setPage(null);
    setError(null);
    const query = new URLSearchParams({ limit: String(limit), cursor });
    api<Page<T>>(`${path}${path.includes('?') ? '&' : '?'}${query}`).then(
      (p) => live && setPage(p),
      (err: Error) => live && setError(err.message),
    );
    return () => {
      live = false;
    };
  }, [path, cursor, limit]);
  return { page, error };
}
