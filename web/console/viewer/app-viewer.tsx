// The platform's artifact viewer as an MCP App (issue #35): the `ui://platform/artifact-viewer.html`
// resource that get_artifact, create_artifact and update_artifact name in `_meta.ui.resourceUri`,
// bundled by the server (src/mcp-server/apps/viewer-html.ts). It shows the artifact the tool result
// carries with the console's own renderers (ArtifactBody: markdown as elements, JSON pretty-printed,
// media, text). When the artifact's type may have a viewer of its own (a vendor type, SPEC §2.10), it
// asks the host to read that viewer through the platform (resources/read of the URI the page names in
// its `platform-type-viewer` meta) and, if there is one, becomes it.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ArtifactBody } from '../artifact-body';
import type { Artifact } from '../browse-api';
import { becomeViewer, connectToHost, type HostSession } from './app-protocol';

type Shown = { artifact: Artifact } | { error: string } | null;

/** A type a content-type server may define (vendor, personal or unregistered tree, not the platform's). */
const mayHaveTypeViewer = (type: string) => /^[^/]+\/(vnd\.|prs\.|x\.|x-)/i.test(type) && !/^application\/vnd\.platform\./i.test(type);

const typeViewerUri = (id: string) =>
  document.querySelector<HTMLMetaElement>('meta[name="platform-type-viewer"]')?.content.replace('{id}', encodeURIComponent(id));

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

/** Asks the platform (through the host) for the type's own viewer; true when this page became it. */
async function typeViewer(host: HostSession, artifact: Artifact, replay: { method: string; params: unknown }[]): Promise<boolean> {
  const uri = typeViewerUri(artifact.id);
  if (!uri || !host.capabilities.serverResources || !mayHaveTypeViewer(artifact.content_type)) return false;
  const read = await host.request('resources/read', { uri }).catch(() => null);
  const page = (read?.contents as { mimeType?: string; text?: unknown }[] | undefined)?.[0];
  if (typeof page?.text !== 'string' || !page.mimeType?.startsWith('text/html')) return false;
  becomeViewer(page.text, replay);
  return true;
}

function Viewer({ shown }: { shown: Shown }) {
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
      <ArtifactBody artifact={artifact} />
    </article>
  );
}

function App() {
  const [shown, setShown] = useState<Shown>(null);
  useEffect(() => {
    const replay: { method: string; params: unknown }[] = [];
    let host: HostSession | null = null;
    let asked = false;
    const onResult = (params: Record<string, unknown>) => {
      const next = shownOf(params);
      setShown(next);
      if (!host || asked || !next || !('artifact' in next)) return;
      asked = true;
      void typeViewer(host, next.artifact, replay);
    };
    connectToHost({ name: 'platform-artifact-viewer', version: '1.0.0' }, (method, params) => {
      if (method === 'ui/notifications/tool-input' || method === 'ui/notifications/tool-result') replay.push({ method, params });
      if (method === 'ui/notifications/tool-result') onResult(params);
    }).then(
      (session) => {
        host = session;
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
  return <Viewer shown={shown} />;
}

render(<App />, document.getElementById('app')!);
