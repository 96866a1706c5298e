// Who wrote an artifact and through what, as a sentence (issue #37): "by ada@example.org via
// tag-keywords (agent) through ci-bot (API key), over the REST API". Every id is named (./names);
// nothing is shown as JSON.
import type { ComponentChildren } from 'preact';
import { NameOf, useName, type NameKind } from './names';
import { artifactPath } from './browse-api';
import { follow } from './router';

/** An artifact's provenance source as the API sends it (SourceSchema: open, so every field optional). */
export interface Source {
  kind?: string;
  request_id?: string;
  import_id?: string;
  stream_id?: string;
  session_id?: string;
  invocation_id?: string;
  action_id?: string;
  agent?: string;
  derived_from?: string;
  commit_id?: string;
  approved_by?: string;
  automation?: { id: string; depth?: number; event_id?: string };
  lifecycle?: string;
  via?: { kind: string; id: string };
}

const viaKinds: Record<string, { names: NameKind; label: string }> = {
  api_key: { names: 'api_keys', label: 'API key' },
  server_credential: { names: 'server_credentials', label: 'server credential' },
  oauth_client: { names: 'oauth_clients', label: 'OAuth client' },
};

/** A credential by its name and kind ("ci-bot (API key)"), or "an API key" where its name is not the reader's to know. */
function Credential({ kind, id, label }: { kind: NameKind; id: string; label: string }) {
  const name = useName(kind, id);
  if (!name) return <span title={id}>…</span>;
  if (!name.known)
    return (
      <span class="name name-unknown" title={id}>
        {name.text}
      </span>
    );
  return (
    <span title={id}>
      <strong class="name">{name.text}</strong> ({label})
    </span>
  );
}

const channels: Record<string, string> = {
  api: 'over the REST API',
  mcp: 'over MCP',
  import: 'by an import',
  stream: 'recorded from a stream',
};

const link = (href: string, children: ComponentChildren, testid?: string) => (
  <a href={href} onClick={follow} data-testid={testid}>
    {children}
  </a>
);

/** The ways a write came, each a phrase: the agent, the automation, the credential, the channel, the commit. */
export function SourceText({ source }: { source: Source | undefined | null }) {
  if (!source) return null;
  const parts: ComponentChildren[] = [];
  if (source.agent) {
    parts.push(
      <span key="agent" data-testid="via-agent">
        {' via '}
        <strong>{source.agent}</strong> (agent)
        {source.invocation_id && (
          <>
            {' ('}
            {link(`/console/invocations/${encodeURIComponent(source.invocation_id)}`, 'its run', 'via-invocation')})
          </>
        )}
      </span>,
    );
  } else if (source.lifecycle === 'on_create') {
    parts.push(
      <span key="lifecycle">
        {' via its type’s on_create'}
        {source.invocation_id && (
          <>
            {' ('}
            {link(`/console/invocations/${encodeURIComponent(source.invocation_id)}`, 'its run')})
          </>
        )}
      </span>,
    );
  }
  if (source.automation) {
    parts.push(
      <span key="automation" data-testid="via-automation">
        {' for the automation '}
        {link(artifactPath(source.automation.id), <NameOf kind="artifacts" id={source.automation.id} />)}
      </span>,
    );
  }
  const via = source.via && viaKinds[source.via.kind];
  if (source.via && via) {
    parts.push(
      <span key="via" data-testid="via-credential">
        {' through '}
        <Credential kind={via.names} id={source.via.id} label={via.label} />
      </span>,
    );
  }
  if (source.kind === 'commit' && source.commit_id) {
    parts.push(
      <span key="commit">
        {' in '}
        {link(`/console/commits/${encodeURIComponent(source.commit_id)}`, 'a commit')}
        {source.approved_by && (
          <>
            {', approved by '}
            <NameOf kind="people" id={source.approved_by} />
          </>
        )}
      </span>,
    );
  } else if (source.kind && channels[source.kind]) {
    parts.push(<span key="channel">{`, ${channels[source.kind]}`}</span>);
  }
  if (source.derived_from) {
    parts.push(
      <span key="derived">
        {', from '}
        {link(artifactPath(source.derived_from), <NameOf kind="artifacts" id={source.derived_from} />)}
      </span>,
    );
  }
  return <>{parts}</>;
}

/** "by <person><source>, <time>". */
export function WrittenBy({ person, at, source }: { person: string; at: string; source?: Source | null }) {
  return (
    <span class="written-by">
      by{' '}
      <strong>
        <NameOf kind="people" id={person} />
      </strong>
      <SourceText source={source} />, <time dateTime={at}>{new Date(at).toLocaleString()}</time>
    </span>
  );
}
