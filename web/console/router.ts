// Client-side paths under /console/ (the platform serves the same page for each): a tiny router on
// the History API. Links stay real links (href), so they open in a new tab and work with the keyboard.
import { useEffect, useState } from 'preact/hooks';

const listeners = new Set<() => void>();

/** Goes to `path` in the page: a new history entry, or (replace) in place of the current one. */
export function navigate(path: string, replace = false): void {
  if (replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  for (const listener of listeners) listener();
}

/** A part of the address, re-rendered on navigate() and on the browser's back and forward. */
function useLocationPart(read: () => string): string {
  const [part, setPart] = useState(read);
  useEffect(() => {
    const update = () => setPart(read());
    listeners.add(update);
    addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      removeEventListener('popstate', update);
    };
  }, []);
  return part;
}

/** The current path. */
export const usePath = (): string => useLocationPart(() => location.pathname);

/** The current query string (`location.search`: "" or "?…"), where a page keeps its state (search, paging). */
export const useSearch = (): string => useLocationPart(() => location.search);

/** onClick for an in-console link: plain clicks stay in the page, modified ones do what the browser does. */
export function follow(event: MouseEvent): void {
  const link = event.currentTarget as HTMLAnchorElement;
  if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  event.preventDefault();
  navigate(link.pathname + link.search);
}
