// The person's server credentials (SPEC §2.6, issue #37): the identity an MCP server they run uses
// to get its own tokens (the client credentials grant). Create one (its secret is shown once, here,
// and kept nowhere but in this component's memory), rotate its secret (the new one shown once),
// deactivate it or switch it back on. A chunk of its own: settings.tsx loads it when the page opens.
import { useState } from 'preact/hooks';
import { api, type Page } from './api';
import type { Container } from './browse-api';
import { ContainerName, Problem } from './commits';
import {
  ConfirmButton,
  ItemsTable,
  reach,
  ScopeChoices,
  scopesOf,
  toggled,
  useItems,
  SecretShownOnce,
  when,
  type ResourceFilters,
} from './settings-common';

interface ServerCredential {
  client_id: string;
  name: string;
  server_id: string;
  host_id: string;
  authority: string;
  scopes: string[];
  resource_filters: ResourceFilters;
  active: boolean;
  created_time: string;
  last_used_at: string | null;
}

/** A secret on screen: the answer of a create or a rotation, until dismissed. */
interface Shown {
  title: string;
  clientId: string;
  secret: string;
}

const path = (c: ServerCredential) => `/server-credentials/${encodeURIComponent(c.client_id)}`;

export function ServerCredentials() {
  const { items, error, setError, reload } = useItems<ServerCredential>('/server-credentials');
  const [shown, setShown] = useState<Shown | null>(null);
  const change = (what: string, work: Promise<unknown>) =>
    work.then(
      () => (setError(null), reload()),
      (err: Error) => setError(`${what}: ${err.message}`),
    );
  return (
    <section aria-labelledby="servers-title">
      <h2 id="servers-title">Server credentials</h2>
      <p class="note">
        A server credential is the identity of an MCP server you run: it trades its client ID and secret for tokens of its own, within its
        scopes. Rotate a secret that may have leaked; deactivate a credential to stop it and its tokens at once.
      </p>
      <Problem error={error} />
      {shown && <ShownSecret {...shown} onDone={() => setShown(null)} />}
      <CreateServerCredential
        onCreated={(made) => {
          setShown({ title: `The secret of “${made.name}”`, clientId: made.client_id, secret: made.client_secret });
          void reload();
        }}
        onError={setError}
      />
      <ItemsTable
        items={items}
        error={error}
        loading="Loading server credentials…"
        empty="You have no server credentials."
        caption="Your server credentials"
        columns={['Name', 'Client ID', 'Scopes', 'Reach', 'Status', 'Created', 'Last used']}
        row={(c) => (
          <tr key={c.client_id} data-client-id={c.client_id} class={c.active ? undefined : 'inactive'}>
            <th scope="row">{c.name}</th>
            <td>
              <code>{c.client_id}</code>
              <span class="note">
                {' '}
                for server {c.server_id}, host {c.host_id}
              </span>
            </td>
            <td>{c.scopes.join(', ')}</td>
            <td>
              <Reach filters={c.resource_filters} />
            </td>
            <td>{c.active ? 'active' : 'deactivated'}</td>
            <td>{when(c.created_time)}</td>
            <td>{when(c.last_used_at)}</td>
            <td class="actions">
              <ConfirmButton
                name={`Rotate the secret of ${c.name}`}
                label="Rotate secret"
                question={`Rotate the secret of “${c.name}”? The old secret, and every token it got, stop working at once.`}
                yes="Rotate secret"
                onConfirm={() =>
                  change(
                    `Could not rotate the secret of “${c.name}”`,
                    api<{ client_id: string; client_secret: string }>(`${path(c)}/rotate`, { method: 'POST' }).then((rotated) =>
                      setShown({ title: `The new secret of “${c.name}”`, clientId: rotated.client_id, secret: rotated.client_secret }),
                    ),
                  )
                }
              />{' '}
              {c.active ? (
                <ConfirmButton
                  name={`Deactivate ${c.name}`}
                  label="Deactivate"
                  question={`Deactivate “${c.name}”? It gets no more tokens, and those it has stop working at once.`}
                  yes="Deactivate"
                  onConfirm={() =>
                    change(`Could not deactivate “${c.name}”`, api(path(c), { method: 'PATCH', body: JSON.stringify({ active: false }) }))
                  }
                />
              ) : (
                <button
                  type="button"
                  aria-label={`Reactivate ${c.name}`}
                  onClick={() =>
                    void change(
                      `Could not reactivate “${c.name}”`,
                      api(path(c), { method: 'PATCH', body: JSON.stringify({ active: true }) }),
                    )
                  }
                >
                  Reactivate
                </button>
              )}
            </td>
          </tr>
        )}
      />
    </section>
  );
}

/** The filters, with the names of the workspaces and collections they list. */
function Reach({ filters }: { filters: ResourceFilters }) {
  const listed = (['workspaces', 'collections'] as const).flatMap((kind) =>
    filters[kind] === '*' ? [] : filters[kind].map((id) => ({ kind, id })),
  );
  return (
    <>
      {reach(filters)}
      {listed.length > 0 && (
        <ul class="reach">
          {listed.map(({ kind, id }) => (
            <li key={`${kind}/${id}`}>
              <ContainerName kind={kind} id={id} />
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

const chosenIdPattern = '[A-Za-z0-9._\\-]{3,118}';

function CreateServerCredential({
  onCreated,
  onError,
}: {
  onCreated: (made: ServerCredential & { client_secret: string }) => void;
  onError: (error: string | null) => void;
}) {
  const [fields, setFields] = useState({ name: '', client_id: '', server_id: '', host_id: '' });
  const [chosen, setChosen] = useState<Set<string>>(new Set(['artifact:read']));
  const [workspaces, setWorkspaces] = useState<Set<string> | null>(null);
  const [collections, setCollections] = useState<Set<string> | null>(null);
  const [fine, setFine] = useState('');
  const [busy, setBusy] = useState(false);
  const field = (key: keyof typeof fields, label: string, hint: string, extra: Record<string, unknown> = {}) => (
    <p class="field">
      <label for={`server-${key}`}>{label}</label>{' '}
      <input
        id={`server-${key}`}
        type="text"
        value={fields[key]}
        required
        maxLength={200}
        aria-describedby={`server-${key}-hint`}
        onInput={(e) => setFields({ ...fields, [key]: e.currentTarget.value })}
        {...extra}
      />{' '}
      <span class="note" id={`server-${key}-hint`}>
        {hint}
      </span>
    </p>
  );
  const submit = (event: Event) => {
    event.preventDefault();
    const scopes = scopesOf(chosen, fine);
    if (scopes.length === 0) return onError('Choose at least one scope.');
    if (workspaces?.size === 0) return onError('Choose at least one workspace, or let it reach every workspace.');
    if (collections?.size === 0) return onError('Choose at least one collection, or let it reach every collection.');
    setBusy(true);
    const body = {
      name: fields.name.trim(),
      client_id: fields.client_id.trim(),
      server_id: fields.server_id.trim(),
      host_id: fields.host_id.trim(),
      scopes,
      resource_filters: { workspaces: workspaces ? [...workspaces] : '*', collections: collections ? [...collections] : '*' },
    };
    api<ServerCredential & { client_secret: string }>('/server-credentials', { method: 'POST', body: JSON.stringify(body) })
      .then(
        (made) => {
          onError(null);
          setFields({ name: '', client_id: '', server_id: '', host_id: '' });
          setFine('');
          onCreated(made);
        },
        (err: Error) => onError(`Could not create the server credential: ${err.message}`),
      )
      .finally(() => setBusy(false));
  };
  return (
    <form class="create-key create-server" aria-labelledby="create-server-title" onSubmit={submit}>
      <h3 id="create-server-title">New server credential</h3>
      {field('name', 'Name', 'What people see, e.g. “Notes indexer”.')}
      {field('client_id', 'Client ID', '3 or more letters, digits, “.”, “_” or “-”; the platform adds a suffix of yours.', {
        pattern: chosenIdPattern,
        maxLength: 118,
        spellcheck: false,
        autoComplete: 'off',
      })}
      {field('server_id', 'Server ID', 'The MCP server it is for.')}
      {field('host_id', 'Host ID', 'Where that server runs.')}
      <ScopeChoices
        id="server-scopes"
        chosen={chosen}
        onToggle={(scope) => setChosen(toggled(chosen, scope))}
        fine={fine}
        onFine={setFine}
      />
      <Filter kind="workspaces" chosen={workspaces} onChange={setWorkspaces} />
      <Filter kind="collections" chosen={collections} onChange={setCollections} />
      <button type="submit" disabled={busy}>
        Create server credential
      </button>
    </form>
  );
}

/**
 * One resource filter: every workspace (or collection) the person can reach, or only those ticked,
 * from the first hundred the API lists (read when "only these" is chosen).
 */
function Filter({
  kind,
  chosen,
  onChange,
}: {
  kind: 'workspaces' | 'collections';
  chosen: Set<string> | null;
  onChange: (next: Set<string> | null) => void;
}) {
  const [listed, setListed] = useState<Container[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const one = kind.slice(0, -1);
  const only = () => {
    onChange(chosen ?? new Set());
    if (listed === null)
      api<Page<Container>>(`/${kind}?limit=100`).then(
        (page) => setListed(page.items),
        (err: Error) => setError(`Could not list your ${kind}: ${err.message}`),
      );
  };
  return (
    <fieldset>
      <legend>{kind === 'workspaces' ? 'Workspaces' : 'Collections'} it reaches</legend>
      <label class="scope">
        <input type="radio" name={`${kind}-reach`} checked={chosen === null} onChange={() => onChange(null)} /> every {one} you can reach
      </label>
      <label class="scope">
        <input type="radio" name={`${kind}-reach`} checked={chosen !== null} onChange={only} /> only these {kind}:
      </label>
      {chosen !== null && (
        <div class="filter-choices" role="group" aria-label={`Which ${kind}`}>
          <Problem error={error} />
          {listed === null && !error && <p role="status">Loading your {kind}…</p>}
          {listed?.length === 0 && <p>You have no {kind}.</p>}
          {listed?.map((c) => (
            <label key={c.id} class="scope">
              <input type="checkbox" checked={chosen.has(c.id)} onChange={() => onChange(toggled(chosen, c.id))} /> {c.name}
            </label>
          ))}
        </div>
      )}
    </fieldset>
  );
}

/** A secret shown once, with the client ID it goes with. */
function ShownSecret({ title, clientId, secret, onDone }: Shown & { onDone: () => void }) {
  return (
    <SecretShownOnce
      id="shown-secret-title"
      title={title}
      label="Client secret"
      copyLabel="Copy secret"
      secret={secret}
      what="the secret"
      onDone={onDone}
    >
      <p>
        Client ID <code>{clientId}</code>
      </p>
    </SecretShownOnce>
  );
}
