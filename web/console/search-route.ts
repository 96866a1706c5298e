// The search page's place in the console's first load: only this wrapper. The page itself
// (search.tsx, with the analyzer that marks a snippet's words) is a chunk fetched on the first visit.
import { h, type FunctionComponent } from 'preact';
import { useEffect, useState } from 'preact/hooks';

let loading: Promise<FunctionComponent> | null = null;

export function SearchPage() {
  const [Page, setPage] = useState<FunctionComponent | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    loading ??= import('./search').then((m) => m.SearchView);
    loading.then(
      (component) => live && setPage(() => component),
      (err: Error) => {
        loading = null;
        if (live) setError(`The search page could not be loaded: ${err.message}`);
      },
    );
    return () => {
      live = false;
    };
  }, []);
  if (error) return h('p', { role: 'alert', class: 'error' }, error);
  return Page ? h(Page, {}) : h('p', { role: 'status' }, 'Loading…');
}
