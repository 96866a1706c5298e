// Who may act for the person: the consents they gave (a server credential or API key sending
// X-On-Behalf-Of, an OAuth application), and their OAuth connections to outside providers.
import { api } from './api';
import { ContainerName, Problem } from './commits';
import { ConfirmButton, ItemsTable, useItems, when } from './settings-common';

interface Consent {
  credential_kind: 'server_credential' | 'api_key' | 'oauth_client';
  credential_id: string;
  created_at: string;
  client_name?: string;
  scopes?: string[];
}

interface Connection {
  id: string;
  authorizer_id: string;
  status: string;
  granted_scopes: string[] | null;
  server_client_ids: string[];
  expires_at: string | null;
  connected_at: string | null;
  error: { code: string; detail: string; at: string } | null;
}

const kindLabel: Record<Consent['credential_kind'], string> = {
  server_credential: 'Server credential',
  api_key: 'API key',
  oauth_client: 'Application',
};

const consentName = (c: Consent) => c.client_name ?? c.credential_id;

export function Consents() {
  const { items, error, setError, reload } = useItems<Consent>('/consents');
  return (
    <section aria-labelledby="consents-title">
      <h2 id="consents-title">Consents</h2>
      <p class="note">Servers, keys and applications you allowed to act on your behalf. Revoke one and it no longer can.</p>
      <Problem error={error} />
      <ItemsTable
        items={items}
        error={error}
        loading="Loading consents…"
        empty="You have not consented to anything."
        caption="Your consents"
        columns={['Who', 'Kind', 'Scopes', 'Given']}
        row={(c) => (
          <tr key={`${c.credential_kind}/${c.credential_id}`}>
            <th scope="row">
              {consentName(c)}
              {c.client_name && <span class="note"> ({c.credential_id})</span>}
            </th>
            <td>{kindLabel[c.credential_kind] ?? c.credential_kind}</td>
            <td>{c.scopes ? c.scopes.join(', ') : 'its own'}</td>
            <td>{when(c.created_at)}</td>
            <td>
              <ConfirmButton
                name={`Revoke consent for ${consentName(c)}`}
                label="Revoke"
                question={`Stop “${consentName(c)}” acting on your behalf?`}
                yes="Revoke consent"
                onConfirm={() =>
                  api(`/consents/${encodeURIComponent(c.credential_kind)}/${encodeURIComponent(c.credential_id)}`, {
                    method: 'DELETE',
                  }).then(
                    () => (setError(null), reload()),
                    (err: Error) => setError(`Could not revoke the consent for “${consentName(c)}”: ${err.message}`),
                  )
                }
              />
            </td>
          </tr>
        )}
      />
    </section>
  );
}

export function Connections() {
  const { items, error, setError, reload } = useItems<Connection>('/connections');
  return (
    <section aria-labelledby="connections-title">
      <h2 id="connections-title">Connections</h2>
      <p class="note">
        Your sign-ins at outside providers, which MCP servers use for you. Removing one revokes it at the provider where it can.
      </p>
      <Problem error={error} />
      <ItemsTable
        items={items}
        error={error}
        loading="Loading connections…"
        empty="You have no connections."
        caption="Your connections"
        columns={['Provider', 'Status', 'Scopes', 'Connected', 'Expires']}
        row={(c) => (
          <tr key={c.id} data-connection-id={c.id}>
            <th scope="row">
              <ContainerName kind="artifacts" id={c.authorizer_id} />
            </th>
            <td>
              {c.status}
              {c.error && <span class="error"> ({c.error.detail})</span>}
            </td>
            <td>{c.granted_scopes?.join(', ') ?? '—'}</td>
            <td>{when(c.connected_at)}</td>
            <td>{c.expires_at ? when(c.expires_at) : '—'}</td>
            <td>
              <ConfirmButton
                name={`Remove connection ${c.id}`}
                label="Remove"
                question="Remove this connection? Servers that use it stop working for you."
                yes="Remove connection"
                onConfirm={() =>
                  api(`/connections/${encodeURIComponent(c.id)}`, { method: 'DELETE' }).then(
                    () => (setError(null), reload()),
                    (err: Error) => setError(`Could not remove the connection: ${err.message}`),
                  )
                }
              />
            </td>
          </tr>
        )}
      />
    </section>
  );
}
