// A component in a chunk of its own, fetched the first time it is shown (the first visit stays small).
import type { FunctionComponent } from 'preact';
import { useEffect, useState } from 'preact/hooks';

export function lazyComponent<P extends object>(load: () => Promise<FunctionComponent<P>>, what: string): FunctionComponent<P> {
  let chunk: Promise<FunctionComponent<P>> | null = null;
  return function Lazy(props: P) {
    const [Loaded, setLoaded] = useState<FunctionComponent<P> | null>(null);
    const [error, setError] = useState<string | null>(null);
    useEffect(() => {
      let live = true;
      chunk ??= load();
      chunk.then(
        (component) => live && setLoaded(() => component),
        (err: Error) => {
          chunk = null;
          if (live) setError(`The ${what} could not be loaded: ${err.message}`);
        },
      );
      return () => {
        live = false;
      };
    }, []);
    if (error) return <p role="alert">{error}</p>;
    return Loaded ? <Loaded {...props} /> : <p role="status">Loading…</p>;
  };
}
