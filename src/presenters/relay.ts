import { z } from 'zod';
import { policySummary, relayError, runningServer } from '../relay-protocol/wire.js';
import type { ArtifactDoc } from '../store/artifacts.js';
import type { RelayHostDoc } from '../store/relay.js';
import { timestamp } from './schemas.js';

/** A host and what its desktop relay last said (SPEC §4.5 `relay_status`, `GET /relay/hosts`). */
export const hostStatusSchema = z
  .object({
    host_id: z.string(),
    title: z.string(),
    workspace_id: z.string(),
    owner_id: z.string().describe('The person whose machine it is: only their server credentials connect its relay.'),
    connected: z.boolean().describe('Heard from within the last 30 seconds (a connected relay is heard from every 5).'),
    last_seen_at: timestamp.nullable(),
    relay_version: z.string().nullable(),
    os: z.string().nullable(),
    arch: z.string().nullable(),
    sandbox: z.enum(['bwrap', 'sandbox-exec', 'none']).nullable(),
    session_started_at: timestamp.nullable(),
    relay_credential: z.string().nullable().describe('The server credential (client_id) the connected relay signed in with.'),
    servers: z.array(runningServer).describe('The servers the relay keeps running.'),
    errors: z
      .array(relayError)
      .describe("The relay's recent errors, newest last (refusals by its local policy among them); to the host's owner only."),
    policy: policySummary.nullable().describe("The relay's local policy, as it reported it; to the host's owner only."),
  })
  .meta({ id: 'HostStatus' });
export type HostStatus = z.infer<typeof hostStatusSchema>;

export const hostStatusListSchema = z.object({ items: z.array(hostStatusSchema) }).meta({ id: 'HostStatusList' });

/**
 * `viewer`: who asks. The relay's recent errors (a server's stderr among them) and its local policy (the
 * folders of the person's machine) are the owner's to see; others see whether it is connected and what it runs.
 */
export function presentHostStatus(host: ArtifactDoc, status: RelayHostDoc | null, connected: boolean, viewer: string): HostStatus {
  const owner = viewer === host.provenance.created_by;
  return {
    host_id: host._id,
    title: host.title,
    workspace_id: host.collection_id,
    owner_id: host.provenance.created_by,
    connected,
    last_seen_at: status?.last_seen.toISOString() ?? null,
    relay_version: status?.version ?? null,
    os: status?.os ?? null,
    arch: status?.arch ?? null,
    sandbox: (status?.sandbox as HostStatus['sandbox']) ?? null,
    session_started_at: status?.session_started_at.toISOString() ?? null,
    relay_credential: status?.credential_id ?? null,
    servers: status?.servers ?? [],
    errors: owner ? (status?.errors ?? []) : [],
    policy: owner ? (status?.policy ?? null) : null,
  };
}
