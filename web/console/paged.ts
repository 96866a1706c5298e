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
