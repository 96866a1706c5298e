// What the Hosts page (issue #34) reads and writes: host artifacts, their relays' status from
// GET /relay/hosts, and the server credentials relays sign in with (SPEC §2.6: bound to a host).
import { api, ApiError } from './api';

export const hostType = 'application/vnd.platform.host+json';

/** What the relay's local policy allows, as the relay reported it (the relay enforces it, not the platform). */
export interface HostPolicy {
  commands: string[];
  packages: string[];
  repositories: string[];
  folders: { path: string; write: boolean }[];
  network: boolean;
}

export interface HostServer {
  server_id: string;
  revision: number;
  label: string;
  started_at: string;
  /** A repository server: the commit it runs. */
  commit?: string;
}

export interface HostError {
  at: string;
  message: string;
  call_id?: string;
  server_id?: string;
}

/** One host artifact the person can see, with what its relay last reported. */
export interface HostStatus {
  host_id: string;
  title: string;
  workspace_id: string;
  /** The person whose machine it is: only their credentials connect its relay. */
  owner_id: string;
  connected: boolean;
  last_seen_at: string | null;
  relay_version: string | null;
  os: string | null;
  arch: string | null;
  sandbox: 'bwrap' | 'sandbox-exec' | 'none' | null;
  session_started_at: string | null;
  /** The server credential the connected relay signed in with. */
  relay_credential: string | null;
  servers: HostServer[];
  /** Newest last, as the relay sends them. */
  errors: HostError[];
  policy: HostPolicy | null;
}

/** A server credential as GET /server-credentials lists it (never its secret). */
export interface RelayCredential {
  client_id: string;
  name: string;
  server_id: string;
  host_id: string;
  scopes: string[];
  active: boolean;
  created_time: string;
  last_used_at: string | null;
}

/** The answer that made a credential: its secret, this once. */
export interface NewRelayCredential extends RelayCredential {
  client_secret: string;
}

/** The server_id a relay's credential names: the relay itself, not one MCP server. */
export const relayServerId = 'relay';

export const listHosts = () => api<{ items: HostStatus[] }>('/relay/hosts').then((page) => page.items);

export const listRelayCredentials = () =>
  api<{ items: RelayCredential[] }>('/server-credentials').then((page) => page.items.filter((c) => c.server_id === relayServerId));

export function createHost(title: string, workspaceId: string, notes: string): Promise<{ id: string }> {
  return api<{ id: string }>('/artifacts', {
    method: 'POST',
    body: JSON.stringify({
      title,
      content_type: hostType,
      content: JSON.stringify(notes ? { notes } : {}),
      collection_id: workspaceId,
    }),
  });
}

/** A client id's chosen part from a host's title: `relay-laptop` for "Laptop" (the API qualifies it). */
export function relayClientId(host: Pick<HostStatus, 'host_id' | 'title'>): string {
  const slug = host.title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  return `relay-${slug || host.host_id.slice(0, 8)}`;
}

/**
 * A credential for the host's relay: it reads artifacts of the host's workspace only. A second relay
 * credential for the same host gets the next free name (`relay-laptop-2`): the API answers 409 for
 * a name the person already has.
 */
export async function createRelayCredential(host: HostStatus): Promise<NewRelayCredential> {
  const base = relayClientId(host);
  for (let attempt = 1; ; attempt++) {
    try {
      return await api<NewRelayCredential>('/server-credentials', {
        method: 'POST',
        body: JSON.stringify({
          client_id: attempt === 1 ? base : `${base}-${attempt}`,
          name: `Relay on ${host.title}`.slice(0, 200),
          server_id: relayServerId,
          host_id: host.host_id,
          scopes: ['artifact:read'],
          resource_filters: { workspaces: [host.workspace_id], collections: [] },
        }),
      });
    } catch (err) {
      if (attempt < 20 && err instanceof ApiError && err.status === 409) continue;
      throw err;
    }
  }
}

/** A word as a POSIX shell reads it: bare when it is plainly safe, else single-quoted. */
const shellWord = (word: string) => (/^[A-Za-z0-9._:/@%+=,-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`);

/**
 * The command that starts the relay, run in a checkout of this repository. `url` is where the
 * person's browser reached the console: the console is served by the API itself, so the relay on the
 * same machine reaches the API there too.
 */
export function relayCommand(url: string, clientId: string, secret: string): string {
  return `PLATFORM_RELAY_CLIENT_SECRET='${secret.replaceAll("'", `'\\''`)}' npx --yes --package=. platform-relay --url ${shellWord(url)} --client-id ${shellWord(clientId)}`;
}
