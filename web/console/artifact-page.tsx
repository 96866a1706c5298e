// One artifact, opened (POST /artifacts/{id}/open, which runs its type's on_open) and rendered by its
// type; a type with a viewer is shown in the MCP Apps host (./viewer/frame) above it. Where open is
// refused (403, 404: a built-in agent or server has no container), GET /artifacts/{id} reads it.
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from './api';
import { ArtifactBody, baseType } from './artifact-body';
import { containerPath, type Artifact, type Opened } from './browse-api';
import { ContainerName, Problem } from './commits';
import { follow } from './router';
import { ViewerFrame } from './viewer/lazy';
import { typeBodies } from './types/index';
import { WrittenBy, type Source } from './provenance';
import { TypeBadge, type TypeUi } from './type-badge';
import { lazyComponent } from './lazy';
import { ServerIcon, ToolIcons } from './icons';

const mcpServerType = 'application/vnd.platform.mcp-server+json';

async function open(id: string): Promise<Opened> {
  const path = `/artifacts/${encodeURIComponent(id)}`;
  try {
    return await api<Opened>(`${path}/open`, { method: 'POST' });
  } catch (err) {
    if (!(err instanceof ApiError) || (err.status !== 403 && err.status !== 404)) throw err;
    return { artifact: await api<Artifact>(path), type: null, on_open: { status: 'skipped' } };
  }
}

const json = (value: unknown) => JSON.stringify(value, null, 2);

function Facts({ artifact, onOpen, type }: { artifact: Artifact; onOpen: Opened['on_open']; type: Opened['type'] }) {
  const p = artifact.provenance;
  // The type definition the open answered with (§2.10): a registered type's label, icon and colour.
  const ui = (type as { mime?: string; ui?: TypeUi } | null)?.ui;
  const registered = ui ? new Map([[baseType(artifact.content_type), ui]]) : undefined;
  return (
    <dl class="facts" aria-label="About this artifact">
      <dt>Type</dt>
      <dd>
        <TypeBadge contentType={artifact.content_type} registered={registered} /> <code class="mime">{artifact.content_type}</code>
      </dd>
      <dt>State</dt>
      <dd data-testid="artifact-state">{artifact.state}</dd>
      <dt>Revision</dt>
      <dd>{artifact.revision}</dd>
      {artifact.version !== undefined && (
        <>
          <dt>Version</dt>
          <dd>{artifact.version}</dd>
        </>
      )}
      {artifact.collection_id && artifact.container && (
        <>
          <dt>{artifact.container === 'workspace' ? 'Workspace' : 'Collection'}</dt>
          <dd>
            <a href={containerPath(artifact.container, artifact.collection_id)} onClick={follow} data-testid="artifact-container">
              <ContainerName kind={artifact.container === 'workspace' ? 'workspaces' : 'collections'} id={artifact.collection_id} />
            </a>
          </dd>
        </>
      )}
      {p && (
        <>
          <dt>Created</dt>
          <dd data-testid="artifact-created">
            <WrittenBy person={p.created_by} at={p.created_at} />
          </dd>
          <dt>Updated</dt>
          <dd data-testid="artifact-updated">
            <WrittenBy person={p.updated_by} at={p.updated_at} source={p.source as Source | undefined} />
          </dd>
        </>
      )}
      {baseType(artifact.content_type) === mcpServerType && artifact.container === 'workspace' && artifact.collection_id && (
        <>
          <dt>Server</dt>
          <dd>
            <ServerIcon workspaceId={artifact.collection_id} serverId={artifact.id} label={artifact.title} /> {artifact.title}
            <ToolIcons workspaceId={artifact.collection_id} serverId={artifact.id} label={artifact.title} />
          </dd>
        </>
      )}
      <dt>On open</dt>
      <dd>
        {onOpen.status}
        {onOpen.reason ? ` (${onOpen.reason})` : ''}
        {onOpen.invocation_id && (
          <>
            {' '}
            <a href={`/console/invocations/${encodeURIComponent(onOpen.invocation_id)}`} onClick={follow}>
              invocation
            </a>
          </>
        )}
      </dd>
    </dl>
  );
}

export function ArtifactView({ id }: { id: string }) {
  const [opened, setOpened] = useState<Opened | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    open(id).then(setOpened, (err: Error) => setError(err.message));
  }, [id]);
  const artifact = opened?.artifact;
  return (
    <article aria-labelledby="artifact-title" class="artifact-view">
      <p>
        {artifact?.collection_id && artifact.container ? (
          <a href={containerPath(artifact.container, artifact.collection_id)} onClick={follow}>
            ← <ContainerName kind={artifact.container === 'workspace' ? 'workspaces' : 'collections'} id={artifact.collection_id} />
          </a>
        ) : (
          <a href="/console/" onClick={follow}>
            ← Overview
          </a>
        )}
      </p>
      <h1 id="artifact-title">{artifact?.title ?? 'Artifact'}</h1>
      <Problem error={error} />
      {!error && !opened && <p role="status">Opening…</p>}
      {opened && artifact && (
        <>
          <Facts artifact={artifact} onOpen={opened.on_open} type={opened.type} />
          {opened.viewer && <ViewerFrame artifact={artifact} viewer={opened.viewer} />}
          <section aria-labelledby="content-title" class="artifact-content">
            <h2 id="content-title">Content</h2>
            <Body artifact={artifact} />
          </section>
          {artifact.context && Object.keys(artifact.context).length > 0 && (
            <section aria-labelledby="context-title">
              <h2 id="context-title">Context</h2>
              <pre class="json" tabIndex={0} aria-label="Context (JSON)">
                {json(artifact.context)}
              </pre>
            </section>
          )}
          {artifact.provenance && <LazyHistory key={`${artifact.id}:${artifact.revision}`} artifact={artifact} />}
        </>
      )}
    </article>
  );
}

/**
 * The content as its type's page shows it: the platform's own types (chat, view, stream, MCP client
 * configuration) have pages of their own, which call the API; anything else is ArtifactBody, which
 * the MCP App page shares and which fetches nothing.
 */
function Body({ artifact }: { artifact: Artifact }) {
  const TypeBody = typeBodies[baseType(artifact.content_type)];
  return TypeBody ? <TypeBody artifact={artifact} /> : <ArtifactBody artifact={artifact} />;
}

/** The artifact's versions or revisions (./history): a chunk of its own, with the diff library. */
const LazyHistory = lazyComponent(() => import('./history').then((m) => m.History), 'history');
