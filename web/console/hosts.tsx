// The person's hosts (issue #34): the computers where their desktop relay runs MCP servers, with what
// each relay last reported, a form to add one, and the command that starts a relay (its credential's
// secret shown once, here, and kept nowhere but in this component's memory).
import { useEffect, useState } from 'preact/hooks';
import { api, type Me, type Workspace } from './api';
import { ContainerName, Problem } from './commits';
import { createHost, createRelayCredential, listHosts, listRelayCredentials, relayCommand } from './hosts-api';
import type { HostStatus, NewRelayCredential, RelayCredential } from './hosts-api';
import { RelayDetails, RelayFacts } from './hosts-facts';
import { usePaged } from './paged';
import { ConfirmButton, useShownOnce, when } from './settings-common';

/** How often the list is read again while the page is open and visible: a relay connects by itself. */
const refreshMs = 10_000;

function useHosts() {
  const [hosts, setHosts] = useState<HostStatus[] | null>(null);
  const [credentials, setCredentials] = useState<RelayCredential[]>([]);
  const [error, setError] = useState<string | null>(null);
  const reload = () =>
    Promise.all([listHosts(), listRelayCredentials()]).then(
      ([h, c]) => {
        setHosts(h);
        setCredentials(c);
        setError(null);
      },
      (err: Error) => setError(`Could not read your hosts: ${err.message}`),
    );
  useEffect(() => {
    void reload();
    const timer = setInterval(() => document.visibilityState === 'visible' && void reload(), refreshMs);
    return () => clearInterval(timer);
  }, []);
  return { hosts, credentials, error, setError, reload };
}

export function HostsView() {
  const { hosts, credentials, error, setError, reload } = useHosts();
  const [me, setMe] = useState<string | null>(null);
  useEffect(
    () =>
      void api<Me>('/me').then(
        (m) => setMe(m.id),
        () => setMe(null),
      ),
    [],
  );
  return (
    <>
      <h1>Hosts</h1>
      <p class="note">
        A host is one of your own computers where the platform's relay runs MCP servers for you, connecting out to the platform so that
        nothing has to reach in.
      </p>
      <Problem error={error} />
      <AddHost onAdded={() => void reload()} />
      <section aria-labelledby="hosts-title">
        <h2 id="hosts-title">Your hosts</h2>
        <button type="button" onClick={() => void reload()}>
          Refresh
        </button>
        {hosts === null && !error && <p role="status">Loading hosts…</p>}
        {hosts?.length === 0 && <p>You have no hosts yet. Add one above, then connect a relay on that computer.</p>}
        {hosts?.map((host) => (
          <HostCard
            key={host.host_id}
            host={host}
            credentials={credentials.filter((c) => c.host_id === host.host_id)}
            mine={me === host.owner_id}
            onChanged={() => void reload()}
            onError={setError}
          />
        ))}
      </section>
    </>
  );
}

function AddHost({ onAdded }: { onAdded: () => void }) {
  const workspaces = usePaged<Workspace>('/workspaces');
  const [title, setTitle] = useState('');
  const [workspace, setWorkspace] = useState('');
  const [notes, setNotes] = useState('');
  const [busy, setBusy] = useState(false);
  const [said, setSaid] = useState<{ error: boolean; text: string } | null>(null);
  const chosen = workspace || workspaces.items?.[0]?.id || '';
  return (
    <form
      class="add-host"
      aria-labelledby="add-host-title"
      onSubmit={(event) => {
        event.preventDefault();
        if (!title.trim()) return setSaid({ error: true, text: 'Give the host a name.' });
        if (!chosen) return setSaid({ error: true, text: 'Choose a workspace.' });
        setBusy(true);
        createHost(title.trim(), chosen, notes.trim())
          .then(
            () => {
              setSaid({ error: false, text: `Added “${title.trim()}”. Connect a relay to it below.` });
              setTitle('');
              setNotes('');
              onAdded();
            },
            (err: Error) => setSaid({ error: true, text: `Could not add the host: ${err.message}` }),
          )
          .finally(() => setBusy(false));
      }}
    >
      <h2 id="add-host-title">Add a host</h2>
      <label>
        Host name{' '}
        <input
          type="text"
          value={title}
          maxLength={200}
          required
          placeholder="My laptop"
          onInput={(e) => setTitle(e.currentTarget.value)}
        />
      </label>{' '}
      <label>
        Workspace{' '}
        <select value={chosen} required disabled={!workspaces.items?.length} onChange={(e) => setWorkspace(e.currentTarget.value)}>
          {workspaces.items?.map((w) => (
            <option key={w.id} value={w.id}>
              {w.name}
            </option>
          ))}
        </select>
      </label>
      {workspaces.more && (
        <button type="button" disabled={workspaces.loading} onClick={workspaces.more}>
          Show more workspaces
        </button>
      )}
      {workspaces.items?.length === 0 && <p>Create a workspace first: a host belongs to one, and its relay reads only that workspace.</p>}
      <Problem error={workspaces.error} />
      <label class="block">
        Notes (optional) <textarea rows={2} maxLength={2000} value={notes} onInput={(e) => setNotes(e.currentTarget.value)} />
      </label>
      <button type="submit" disabled={busy}>
        Add host
      </button>
      {said?.error ? <Problem error={said.text} /> : <p role="status">{said?.text}</p>}
    </form>
  );
}

function HostCard(props: {
  host: HostStatus;
  credentials: RelayCredential[];
  /** The viewer's own machine: only its creator connects a relay to a host. */
  mine: boolean;
  onChanged: () => void;
  onError: (error: string | null) => void;
}) {
  const { host, credentials } = props;
  const [made, setMade] = useState<NewRelayCredential | null>(null);
  const [busy, setBusy] = useState(false);
  const titleId = `host-${host.host_id}-title`;
  return (
    <section class="host" aria-labelledby={titleId} data-host-id={host.host_id}>
      <h3 id={titleId}>{host.title}</h3>
      <p>
        {host.connected ? <span class="badge host-connected">Connected</span> : <span class="badge host-offline">Offline</span>}{' '}
        <span class="meta">{host.last_seen_at ? `last seen ${when(host.last_seen_at)}` : 'never connected'}</span>
      </p>
      <dl class="facts">
        <dt>Workspace</dt>
        <dd>
          <ContainerName kind="workspaces" id={host.workspace_id} />
        </dd>
        <dt>Host id</dt>
        <dd>
          <code>{host.host_id}</code> <span class="meta">(an MCP server whose transport names this host_id runs here)</span>
        </dd>
        <RelayFacts host={host} />
      </dl>
      <RelayDetails host={host} />
      {credentials.length > 0 && (
        <>
          <h4>Relay credentials</h4>
          <ul class="items" aria-label={`Relay credentials of ${host.title}`}>
            {credentials.map((c) => (
              <li key={c.client_id}>
                <code>{c.client_id}</code>{' '}
                <span class="meta">
                  made {when(c.created_time)}, last used {when(c.last_used_at)}
                  {!c.active && ', inactive'}
                </span>{' '}
                <ConfirmButton
                  name={`Revoke relay credential ${c.client_id}`}
                  label="Revoke"
                  question={`Revoke “${c.client_id}”? A relay signed in with it stops.`}
                  yes="Revoke credential"
                  onConfirm={() =>
                    api(`/server-credentials/${encodeURIComponent(c.client_id)}`, { method: 'DELETE' }).then(
                      () => (props.onError(null), props.onChanged()),
                      (err: Error) => props.onError(`Could not revoke “${c.client_id}”: ${err.message}`),
                    )
                  }
                />
              </li>
            ))}
          </ul>
        </>
      )}
      {!props.mine ? (
        <p class="note">Another person's machine: only they can connect its relay.</p>
      ) : made ? (
        <RelayCommand host={host} credential={made} onDone={() => setMade(null)} />
      ) : (
        <button
          type="button"
          disabled={busy}
          aria-describedby={titleId}
          onClick={() => {
            setBusy(true);
            createRelayCredential(host)
              .then(
                (credential) => {
                  props.onError(null);
                  setMade(credential);
                  props.onChanged();
                },
                (err: Error) => props.onError(`Could not make a credential for “${host.title}”: ${err.message}`),
              )
              .finally(() => setBusy(false));
          }}
        >
          Connect a relay
        </button>
      )}
    </section>
  );
}

/** The command with the new credential's secret: shown once; it is gone once dismissed or the page is left. */
function RelayCommand({ host, credential, onDone }: { host: HostStatus; credential: NewRelayCredential; onDone: () => void }) {
  const command = relayCommand(location.origin, credential.client_id, credential.client_secret);
  const { copied, field, box, copy } = useShownOnce<HTMLTextAreaElement>(command, 'the command');
  const heading = `relay-${host.host_id}-title`;
  return (
    <div class="new-key relay-command" role="region" aria-labelledby={heading} tabIndex={-1} ref={box}>
      <h4 id={heading}>Start the relay on “{host.title}”</h4>
      <p class="warning">
        <strong>Copy it now: the secret in it will not be shown again.</strong> The platform keeps only a hash of it; if you lose it, revoke
        the credential and connect again.
      </p>
      <label class="block">
        Relay command
        <textarea
          ref={field}
          class="secret"
          rows={3}
          readOnly
          value={command}
          spellcheck={false}
          autoComplete="off"
          onFocus={(e) => e.currentTarget.select()}
        />
      </label>
      <p class="note">
        Run it in a checkout of this platform's repository (run <code>npm ci</code> there first). The relay's local policy file (
        <code>npx --yes --package=. platform-relay policy --init</code> writes one) decides which packages, repositories and folders it may
        use, and whether its servers reach the network.
      </p>
      <button type="button" onClick={() => void copy()}>
        Copy command
      </button>{' '}
      <button type="button" onClick={onDone}>
        I have copied it
      </button>
      <p role="status">{copied}</p>
    </div>
  );
}
