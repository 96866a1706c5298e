// The person's settings (issues #20, #37): their API keys and server credentials, the consents they
// gave to credentials that act on their behalf, and their OAuth connections. Every removal asks once
// more in the page, next to the button that started it. Everything the API says is text.
import type { FunctionComponent } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { Me } from './api';
import { Connections, Consents } from './settings-access';
import { ApiKeys } from './settings-keys';

export function SettingsView({ me }: { me: Me | null }) {
  return (
    <>
      <h1>Settings</h1>
      {me?.email && <p class="note">Everything on this page belongs to {me.email}.</p>}
      <ApiKeys />
      <ServerCredentials />
      <Consents />
      <Connections />
    </>
  );
}

let servers: Promise<FunctionComponent> | null = null;

/** The server credentials section, a chunk of its own (the first visit stays small), fetched when settings open. */
function ServerCredentials() {
  const [Loaded, setLoaded] = useState<FunctionComponent | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    servers ??= import('./settings-servers').then((m) => m.ServerCredentials);
    servers.then(
      (component) => live && setLoaded(() => component),
      (err: Error) => {
        servers = null;
        if (live) setError(`The server credentials could not be loaded: ${err.message}`);
      },
    );
    return () => {
      live = false;
    };
  }, []);
  if (Loaded) return <Loaded />;
  return (
    <section aria-labelledby="servers-title">
      <h2 id="servers-title">Server credentials</h2>
      {error ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : (
        <p role="status">Loading server credentials…</p>
      )}
    </section>
  );
}
