// The person's API keys: create one (its secret is shown once, here, and kept nowhere but in this
// component's memory), list them, revoke one.
import { useState } from 'preact/hooks';
import { api } from './api';
import { Problem } from './commits';
import { ConfirmButton, ItemsTable, reach, ScopeChoices, scopesOf, SecretShownOnce, toggled, useItems, when } from './settings-common';

interface ApiKey {
  id: string;
  name: string;
  scopes: string[];
  resource_filters: { workspaces: '*' | string[]; collections: '*' | string[] };
  created_at: string;
  last_used_at: string | null;
}

export function ApiKeys() {
  const { items, error, setError, reload } = useItems<ApiKey>('/api-keys');
  const [created, setCreated] = useState<{ name: string; key: string } | null>(null);
  return (
    <section aria-labelledby="keys-title">
      <h2 id="keys-title">API keys</h2>
      <p class="note">A key acts as you, within its scopes, for scripts and tools. Revoke a key you no longer use.</p>
      <Problem error={error} />
      {created && <NewKey {...created} onDone={() => setCreated(null)} />}
      <CreateKey
        onCreated={(name, key) => {
          setCreated({ name, key });
          void reload();
        }}
        onError={setError}
      />
      <ItemsTable
        items={items}
        error={error}
        loading="Loading keys…"
        empty="You have no API keys."
        caption="Your API keys"
        columns={['Name', 'Scopes', 'Reach', 'Created', 'Last used']}
        row={(key) => (
          <tr key={key.id} data-key-id={key.id}>
            <th scope="row">{key.name}</th>
            <td>{key.scopes.join(', ')}</td>
            <td>{reach(key.resource_filters)}</td>
            <td>{when(key.created_at)}</td>
            <td>{when(key.last_used_at)}</td>
            <td>
              <ConfirmButton
                name={`Revoke key ${key.name}`}
                label="Revoke"
                question={`Revoke “${key.name}”? Whatever uses it stops working.`}
                yes="Revoke key"
                onConfirm={() =>
                  api(`/api-keys/${encodeURIComponent(key.id)}`, { method: 'DELETE' }).then(
                    () => (setError(null), reload()),
                    (err: Error) => setError(`Could not revoke “${key.name}”: ${err.message}`),
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

function CreateKey({ onCreated, onError }: { onCreated: (name: string, key: string) => void; onError: (error: string | null) => void }) {
  const [name, setName] = useState('');
  const [chosen, setChosen] = useState<Set<string>>(new Set(['artifact:read']));
  const [fine, setFine] = useState('');
  const [busy, setBusy] = useState(false);
  const toggle = (scope: string) => setChosen(toggled(chosen, scope));
  return (
    <form
      class="create-key"
      aria-labelledby="create-key-title"
      onSubmit={(event) => {
        event.preventDefault();
        if (!name.trim()) return onError('Give the key a name.');
        const scopes = scopesOf(chosen, fine);
        if (scopes.length === 0) return onError('Choose at least one scope.');
        setBusy(true);
        api<ApiKey & { key: string }>('/api-keys', {
          method: 'POST',
          body: JSON.stringify({ name: name.trim(), scopes }),
        })
          .then(
            (made) => {
              onError(null);
              setName('');
              setFine('');
              onCreated(made.name, made.key);
            },
            (err: Error) => onError(`Could not create the key: ${err.message}`),
          )
          .finally(() => setBusy(false));
      }}
    >
      <h3 id="create-key-title">New API key</h3>
      <label>
        Key name <input type="text" value={name} maxLength={200} required onInput={(e) => setName(e.currentTarget.value)} />
      </label>
      <ScopeChoices id="key-scopes" chosen={chosen} onToggle={toggle} fine={fine} onFine={setFine} />
      <p class="note">The key reaches every workspace and collection you can reach.</p>
      <button type="submit" disabled={busy}>
        Create key
      </button>
    </form>
  );
}

/** The new key's secret: shown once, with a copy button; it lives only here and is gone once dismissed or the page is left. */
function NewKey({ name, key, onDone }: { name: string; key: string; onDone: () => void }) {
  return (
    <SecretShownOnce
      id="new-key-title"
      title={`Your new key “${name}”`}
      label="API key"
      copyLabel="Copy key"
      secret={key}
      what="the key"
      onDone={onDone}
    />
  );
}
