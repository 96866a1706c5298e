// The person's settings (issue #20): their API keys, the consents they gave to credentials that act on
// their behalf, and their OAuth connections. Every removal asks once more in the page, next to the
// button that started it. Everything the API says is text.
import type { Me } from './api';
import { Connections, Consents } from './settings-access';
import { ApiKeys } from './settings-keys';

export function SettingsView({ me }: { me: Me | null }) {
  return (
    <>
      <h1>Settings</h1>
      {me?.email && <p class="note">Everything on this page belongs to {me.email}.</p>}
      <ApiKeys />
      <Consents />
      <Connections />
    </>
  );
}
