// The platform's own content types (SPEC §2.2) that the console shows as more than their JSON: each
// type's page body, by its base content type. ArtifactBody asks here first. Each body is a chunk of
// its own, fetched the first time an artifact of its type is shown: most visits never need one.
import { h, type FunctionComponent } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { Artifact } from '../browse-api';

type Body = FunctionComponent<{ artifact: Artifact }>;

const loaders: Record<string, () => Promise<Body>> = {
  'application/vnd.platform.chat+json': () => import('./chat').then((m) => m.ChatBody),
  'application/vnd.platform.view+json': () => import('./view').then((m) => m.ViewBody),
  'application/vnd.platform.stream+json': () => import('./stream').then((m) => m.StreamBody),
  'application/vnd.platform.mcp-client+json': () => import('./mcp-client').then((m) => m.McpClientBody),
};

const loading = new Map<string, Promise<Body>>();

function lazyBody(type: string, load: () => Promise<Body>): Body {
  return function TypeBody({ artifact }) {
    const [Loaded, setLoaded] = useState<Body | null>(null);
    const [error, setError] = useState<string | null>(null);
    useEffect(() => {
      let live = true;
      const pending = loading.get(type) ?? load();
      loading.set(type, pending);
      pending.then(
        (component) => live && setLoaded(() => component),
        (err: Error) => {
          loading.delete(type);
          if (live) setError(`This page could not be loaded: ${err.message}`);
        },
      );
      return () => {
        live = false;
      };
    }, []);
    if (error) return h('p', { role: 'alert' }, error);
    return Loaded ? h(Loaded, { artifact }) : h('p', { role: 'status' }, 'Loading…');
  };
}

export const typeBodies: Record<string, Body> = Object.fromEntries(
  Object.entries(loaders).map(([type, load]) => [type, lazyBody(type, load)]),
);
