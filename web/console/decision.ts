import { useState } from 'preact/hooks';
import { api, ApiError } from './api';

/**
 * A decision form's request: POSTs `body` to `path`, keeps the form busy meanwhile, and hands the
 * answer on, or shows what went wrong (the form's `error`, which it may also set itself).
 */
export function useDecision<T>(onDecided: (next: T) => void) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  /** The refusal's problem+json, when the API answered one: a form may explain a known `type` better. */
  const [problem, setProblem] = useState<ApiError['problem'] | null>(null);
  const post = (path: string, body?: unknown) => {
    setBusy(true);
    setError(null);
    setProblem(null);
    api<T>(path, { method: 'POST', ...(body === undefined ? {} : { body: JSON.stringify(body) }) }).then(
      (next) => {
        setBusy(false);
        onDecided(next);
      },
      (err: Error) => {
        setBusy(false);
        setError(err.message);
        setProblem(err instanceof ApiError ? err.problem : null);
      },
    );
  };
  return { error, setError, problem, busy, post };
}
