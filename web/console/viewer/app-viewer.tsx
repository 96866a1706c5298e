// The platform's artifact viewer as an MCP App (issue #35): the `ui://platform/artifact-viewer.html`
// resource that get_artifact, create_artifact and update_artifact name in `_meta.ui.resourceUri`,
// bundled by the server (src/mcp-server/apps/viewer-html.ts). It shows the artifact the tool result
// carries with the console's own renderers (ArtifactBody: markdown as elements, JSON pretty-printed,
// media, text), whatever its type. It never loads a type's own viewer (SPEC §2.10): that is another
// server's code, and the host runs this page as the platform's app, whose tools/call reach every
// platform tool as the person. For a type that may declare a viewer, it says so and links to the
// artifact in the console (the address the server puts in its `platform-console` meta), whose host
// runs that viewer in its sandbox with its own server's tools only.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ArtifactBody } from '../artifact-body';
import type { Artifact } from '../browse-api';
import { connectToHost, type HostSession } from './app-protocol';

type Shown = { artifact: Artifact } | { error: string } | null;

/** A type a content-type server may define (vendor, personal or unregistered tree, not the platform's). */
const mayHaveTypeViewer = (type: string) => /^[^/]+\/(vnd\.|prs\.|x\.|x-)/i.test(type) && !/^application\/vnd\.platform\./i.test(type);

/** The artifact's page in the console, under the address the server gave (http or https only). */
function consolePage(id: string): string | null {
  const base = document.querySelector<HTMLMetaElement>('meta[name="platform-console"]')?.content;
  if (!base || !/^https?:\/\//i.test(base)) return null;
  return `${base.replace(/\/*$/, '/')}artifacts/${encodeURIComponent(id)}`;
}

/** The artifact a tool result carries as JSON in its first text content (SPEC §4.7), or what went wrong. */
function shownOf(params: Record<string, unknown>): Shown {
  const first = (params.content as { type?: string; text?: string }[] | undefined)?.[0];
  const text = first?.type === 'text' ? first.text : undefined;
  if (params.isError) return { error: text ?? 'The tool failed.' };
  let artifact: Artifact | undefined;
  try {
    artifact = JSON.parse(text ?? '') as Artifact;
  } catch {
    // Not JSON text: a host may pass only the structured content on.
    artifact = params.structuredContent as Artifact | undefined;
  }
  if (typeof artifact?.title !== 'string' || typeof artifact.content_type !== 'string')
    return { error: 'The tool result carries no artifact.' };
  // SPEC §4.7: content as a string or an object.
  const content = artifact.content as unknown;
  return { artifact: { ...artifact, content: typeof content === 'string' ? content : JSON.stringify(content) } };
}

/**
 * A link the host opens (ui/open-link) when it can: a sandboxed frame may not navigate or open windows
 * itself. Without that capability it stays a plain link the person can copy.
 */
function HostLink({ href, host, children }: { href: string; host: HostSession | null; children: string }) {
  const open = (event: MouseEvent) => {
    if (!host?.capabilities.openLinks) return;
    event.preventDefault();
    void host.request('ui/open-link', { url: href }).catch(() => undefined);
  };
  return (
    <a href={href} target="_blank" rel="noopener noreferrer" onClick={open}>
      {children}
    </a>
  );
}

/** For a type that may come with a viewer of its own: where that viewer runs (the console), never here. */
function TypeViewerNote({ artifact, host }: { artifact: Artifact; host: HostSession | null }) {
  if (!mayHaveTypeViewer(artifact.content_type)) return null;
  const href = consolePage(artifact.id);
  return (
    <p class="type-viewer" role="note">
      Its type may have a viewer of its own. That viewer runs in the platform's console, not here
      {href ? (
        <>
          {': '}
          <HostLink href={href} host={host}>
            open it in the console
          </HostLink>
          .
        </>
      ) : (
        '.'
      )}
    </p>
  );
}

function Viewer({ shown, host }: { shown: Shown; host: HostSession | null }) {
  if (!shown) return <p role="status">Waiting for the artifact…</p>;
  if ('error' in shown) return <p role="alert">{shown.error}</p>;
  const { artifact } = shown;
  return (
    <article aria-labelledby="title">
      <h1 id="title">{artifact.title}</h1>
      <p class="facts">
        <span class="type">{artifact.content_type}</span> · {artifact.state}
        {artifact.revision ? ` · revision ${artifact.revision}` : ''}
      </p>
      <TypeViewerNote artifact={artifact} host={host} />
      <ArtifactBody artifact={artifact} />
    </article>
  );
}

function App() {
  const [shown, setShown] = useState<Shown>(null);
  const [host, setHost] = useState<HostSession | null>(null);
  useEffect(() => {
    connectToHost({ name: 'platform-artifact-viewer', version: '1.0.0' }, (method, params) => {
      if (method === 'ui/notifications/tool-result') setShown(shownOf(params));
    }).then(
      (session) => {
        setHost(session);
        // The host's size reports: the content's own height, only when it changes (never the frame's).
        const root = document.getElementById('app')!;
        let reported = 0;
        new ResizeObserver(() => {
          const height = Math.ceil(root.getBoundingClientRect().bottom + window.scrollY + 12);
          if (height !== reported) session.notify('ui/notifications/size-changed', { height: (reported = height) });
        }).observe(root);
      },
      (err: Error) => setShown({ error: `The host did not initialize the viewer: ${err.message}` }),
    );
  }, []);
  return <Viewer shown={shown} host={host} />;
}

render(<App />, document.getElementById('app')!);
