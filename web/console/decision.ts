import { useState } from 'preact/hooks';
import { api } from './api';

/**
 * A decision form's request: POSTs `body` to `path`, keeps the form busy meanwhile, and hands the
 * answer on, or shows what went wrong (the form's `error`, which it may also set itself).
 */
export function useDecision<T>(onDecided: (next: T) => void) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const post = (path: string, body?: unknown) => {
    setBusy(true);
    setError(null);
    api<T>(path, { method: 'POST', ...(body === undefined ? {} : { body: JSON.stringify(body) }) }).then(
      (next) => {
        setBusy(false);
        onDecided(next);
      },
      (err: Error) => {
        setBusy(false);
        setError(err.message);
      },
    );
  };
  return { error, setError, busy, post };
}
