// What a host's relay last reported, as the Hosts page shows it: the relay, its sandbox, the servers
// it runs, its recent errors and its local policy. All of it is text the relay sent: rendered as text.
import type { HostPolicy, HostStatus } from './hosts-api';
import { when } from './settings-common';
import { ServerIcon } from './icons';

const sandboxLabel: Record<NonNullable<HostStatus['sandbox']>, string> = {
  bwrap: 'bubblewrap',
  'sandbox-exec': 'sandbox-exec (macOS)',
  none: 'none: servers run unsandboxed',
};

/** How many of a policy's names to spell out before "and N more". */
const shown = 5;

function names(list: string[], none: string): string {
  if (list.length === 0) return none;
  const more = list.length - shown;
  return list.slice(0, shown).join(', ') + (more > 0 ? ` and ${more} more` : '');
}

function PolicyFacts({ policy }: { policy: HostPolicy }) {
  return (
    <dl class="facts" aria-label="Local policy">
      <dt>Commands</dt>
      <dd>{names(policy.commands, 'none')}</dd>
      <dt>Packages</dt>
      <dd>{names(policy.packages, 'none')}</dd>
      <dt>Repositories</dt>
      <dd>{names(policy.repositories, 'none')}</dd>
      <dt>Folders</dt>
      <dd>
        {names(
          policy.folders.map((f) => `${f.path} (${f.write ? 'read and write' : 'read only'})`),
          'none',
        )}
      </dd>
      <dt>Network</dt>
      <dd>{policy.network ? 'on' : 'off'}</dd>
    </dl>
  );
}

/** Whether a relay ever connected to the host (and so reported anything). */
const reported = (host: HostStatus) => Boolean(host.relay_version || host.session_started_at);

/** The relay's own facts, as rows of the host's list of facts: nothing before a relay first connected. */
export function RelayFacts({ host }: { host: HostStatus }) {
  if (!reported(host)) return null;
  return (
    <>
      <dt>Relay</dt>
      <dd>
        {host.relay_version ? `version ${host.relay_version}` : 'version unknown'}
        {host.os && `, ${host.os}${host.arch ? ` ${host.arch}` : ''}`}
      </dd>
      <dt>Sandbox</dt>
      <dd>{host.sandbox ? sandboxLabel[host.sandbox] : 'unknown'}</dd>
      <dt>Session started</dt>
      <dd>{when(host.session_started_at)}</dd>
    </>
  );
}

/** What the relay runs, what went wrong lately (newest first), and what its local policy allows. */
export function RelayDetails({ host }: { host: HostStatus }) {
  if (!reported(host)) return <p class="note">No relay has connected to this host yet.</p>;
  const errors = host.errors.slice(-5).reverse();
  return (
    <>
      <h4>Servers running</h4>
      {host.servers.length === 0 ? (
        <p>None right now: a server starts at its first call.</p>
      ) : (
        <ul class="items" aria-label={`Servers running on ${host.title}`}>
          {host.servers.map((s) => (
            <li key={`${s.server_id}/${s.revision}`}>
              <ServerIcon workspaceId={host.workspace_id} serverId={s.server_id} label={s.label} /> {s.label}{' '}
              <span class="meta">revision {s.revision}</span>
              {s.commit && <span class="meta"> at commit {s.commit.slice(0, 12)}</span>}
              <span class="meta">, since {when(s.started_at)}</span>
            </li>
          ))}
        </ul>
      )}
      <h4>Recent errors</h4>
      {errors.length === 0 ? (
        <p>None.</p>
      ) : (
        <ul class="items host-errors" aria-label={`Recent errors on ${host.title}`}>
          {errors.map((e, i) => (
            <li key={`${e.at}/${i}`}>
              <span class="meta">{when(e.at)}</span> <span class="error">{e.message}</span>
              {e.server_id && <span class="meta"> (server {e.server_id})</span>}
            </li>
          ))}
        </ul>
      )}
      <h4>Local policy</h4>
      {host.policy ? <PolicyFacts policy={host.policy} /> : <p>Not reported.</p>}
    </>
  );
}
