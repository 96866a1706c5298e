// The person's API keys, consents and connections. (Skeleton: filled in by the settings work.)
import type { Me } from './api';

export function SettingsView({ me }: { me: Me | null }) {
  return <h1>Settings{me ? '' : ''}</h1>;
}
