// The console's page body for an application/vnd.platform.mcp-client+json artifact (issue #36): what
// the saved connection grants, its own MCP endpoint, and the configuration to paste into each client
// (GET /artifacts/{id}/client-config), each with a copy button. No key is ever shown: in api_key mode
// the snippets read it from the person's environment or a prompt.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import { containerPath, type Artifact } from '../browse-api';

/** GET /artifacts/{id}/client-config (src/presenters/mcp-clients.ts). */
interface Snippet {
  client: string;
  title: string;
  format: 'shell' | 'json' | 'text';
  path: string | null;
  text: string;
}

interface ClientConfig {
  id: string;
  name: string;
  endpoint: string;
  auth: { type: 'oauth' | 'api_key'; client_id?: string; api_key_id?: string };
  api_key_env: string | null;
  scopes: string[];
  workspaces: '*' | string[];
  collections: '*' | string[];
  tools: string[];
  tools_without_scope: string[];
  snippets: Snippet[];
}

/** Puts `text` on the clipboard, saying what happened (a refusing browser: select the text by hand). */
function CopyButton({ text, label }: { text: string; label: string }) {
  const [status, setStatus] = useState('');
  const copy = () =>
    navigator.clipboard.writeText(text).then(
      () => setStatus('Copied to the clipboard.'),
      () => setStatus('Copying failed: select the text and copy it with your keyboard.'),
    );
  return (
    <>
      <button type="button" aria-label={label} onClick={() => void copy()}>
        Copy
      </button>{' '}
      <span role="status">{status}</span>
    </>
  );
}

function Containers({ kind, ids }: { kind: 'workspace' | 'collection'; ids: '*' | string[] }) {
  if (ids === '*') return <>every {kind} the credential can reach</>;
  if (ids.length === 0) return <>none</>;
  return (
    <>
      {ids.map((id, i) => (
        <span key={id}>
          {i > 0 && ', '}
          <a href={containerPath(kind, id)}>
            <code>{id}</code>
          </a>
        </span>
      ))}
    </>
  );
}

function authText(auth: ClientConfig['auth'], env: string | null): string {
  if (auth.type === 'oauth')
    return `OAuth: the client signs in through the platform${auth.client_id ? `; only the OAuth client ${auth.client_id} is accepted` : ''}.`;
  return `API key: the client sends it as a bearer token, read from ${env ?? 'its environment'}${auth.api_key_id ? `; only the key ${auth.api_key_id} is accepted` : ''}. Create one under Settings; it is shown once.`;
}

export function McpClientBody({ artifact }: { artifact: Artifact }) {
  const [config, setConfig] = useState<ClientConfig | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    setError(null);
    api<ClientConfig>(`/artifacts/${encodeURIComponent(artifact.id)}/client-config`).then(setConfig, (err: Error) => setError(err.message));
  }, [artifact.id, artifact.revision, artifact.content]);

  if (error)
    return (
      <section class="mcp-client">
        <p role="alert">The configuration cannot be shown: {error}</p>
        <pre class="content json">{artifact.content}</pre>
      </section>
    );
  if (!config) return <p aria-busy="true">Loading the configuration…</p>;
  return (
    <section class="mcp-client" aria-label="MCP client configuration">
      <dl class="facts">
        <dt>Server name</dt>
        <dd>
          <code>{config.name}</code>
        </dd>
        <dt>Endpoint</dt>
        <dd>
          <code class="endpoint">{config.endpoint}</code> <CopyButton text={config.endpoint} label="Copy the endpoint URL" />
        </dd>
        <dt>Sign-in</dt>
        <dd>{authText(config.auth, config.api_key_env)}</dd>
        <dt>Scopes</dt>
        <dd>{config.scopes.join(', ')}</dd>
        <dt>Workspaces</dt>
        <dd>
          <Containers kind="workspace" ids={config.workspaces} />
        </dd>
        <dt>Collections</dt>
        <dd>
          <Containers kind="collection" ids={config.collections} />
        </dd>
        <dt>Tools</dt>
        <dd>
          <ul class="tools" aria-label="Tools offered">
            {config.tools.map((t) => (
              <li key={t}>
                <code>{t}</code>
              </li>
            ))}
          </ul>
          {config.tools_without_scope.length > 0 && (
            <p class="warning">Never offered, for want of their scope in this configuration: {config.tools_without_scope.join(', ')}.</p>
          )}
        </dd>
      </dl>
      <h3>Add it to your client</h3>
      {config.snippets.map((s) => (
        <section class="snippet" key={s.client} aria-label={s.title}>
          <h4>
            {s.title}
            {s.path && (
              <>
                {' '}
                — <code>{s.path}</code>
              </>
            )}
          </h4>
          <pre class={`content ${s.format}`} tabIndex={0}>
            {s.text}
          </pre>
          <CopyButton text={s.text} label={`Copy the ${s.title} configuration`} />
        </section>
      ))}
    </section>
  );
}
