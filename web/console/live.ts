import { useEffect, useState } from 'preact/hooks';
import { api } from './api';

/**
 * A document the page watches: read from `path`, and read again every second while `moving` says it
 * is still changing (a commit applying, an invocation running). A decision form may set it directly.
 */
export function useLive<T>(path: string, moving: (value: T) => boolean) {
  const [value, setValue] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = () => api<T>(path).then(setValue, (err: Error) => setError(err.message));
  useEffect(() => {
    void load();
  }, [path]);
  const live = value !== null && moving(value);
  useEffect(() => {
    if (!live) return;
    const timer = setInterval(load, 1000);
    return () => clearInterval(timer);
  }, [live, path]);
  return { value, setValue, error, setError };
}
