// The viewer host, loaded only when an artifact has a viewer: the MCP Apps bridge (and the MCP
// protocol code it brings) is most of the console's weight, and most pages never need it.
import type { ComponentProps, FunctionComponent } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { Problem } from '../commits';
import type { ViewerFrame as Frame } from './frame';

type Props = ComponentProps<typeof Frame>;
let loading: Promise<FunctionComponent<Props>> | null = null;

export function ViewerFrame(props: Props) {
  const [Loaded, setLoaded] = useState<FunctionComponent<Props> | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    loading ??= import('./frame').then((m) => m.ViewerFrame);
    loading.then(
      (component) => setLoaded(() => component),
      (err: Error) => {
        loading = null;
        setError(`The viewer host could not be loaded: ${err.message}`);
      },
    );
  }, []);
  if (error) return <Problem error={error} />;
  return Loaded ? <Loaded {...props} /> : <p role="status">Loading the viewer…</p>;
}
