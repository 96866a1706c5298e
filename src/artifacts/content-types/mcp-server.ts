import { z } from 'zod';

import { stdioRunners } from '../../stdio-servers/catalog.js';
import { steeringEnv } from '../../relay-protocol/wire.js';

const httpTransport = z
  .strictObject({
    type: z.literal('http'),
    /** §2.9 discovery document; the MCP endpoint is resolved from its `endpoints.streamable_http`. */
    well_known: z.url({ protocol: /^https?$/ }).optional(),
    /** The MCP endpoint itself, for servers that publish no discovery document (docs/decisions.md). */
    url: z.url({ protocol: /^https?$/ }).optional(),
  })
  .refine((t) => (t.well_known === undefined) !== (t.url === undefined), {
    message: 'give exactly one of well_known (discovery document) or url (the MCP endpoint)',
    path: ['well_known'],
  });

/** An env value held as a stored secret (POST /secrets), resolved only when the server is started. */
export const secretRef = z.strictObject({ secret_id: z.uuid({ error: 'must be a secret id (UUID)' }) });

const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name');

const secretEnv = z
  .record(
    envName,
    z.strictObject(
      { secret_id: z.uuid({ error: 'must be a secret id (UUID)' }) },
      { error: 'must be a secret reference ({"secret_id": ...}): store the value with POST /secrets' },
    ),
  )
  .default({});

/** A host artifact (`application/vnd.platform.host+json`) whose desktop relay runs the server (issue #34). */
const hostId = z.uuid({ error: 'must be the id of a host artifact' });

/** A server on a host may not set env keys that steer its runner (its relay would refuse every call). */
const hostEnvRule = {
  check: (t: { host_id?: string; env: Record<string, unknown> }) =>
    t.host_id === undefined || !Object.keys(t.env).some((k) => steeringEnv.test(k)),
  params: {
    message:
      'may not set PATH, HOME, TMPDIR, LD_*, DYLD_*, NODE_OPTIONS, NODE_PATH, npm_config_*, PYTHON*, PIP_*, UV_*, DENO_*, BASH_ENV or ENV on a host',
    path: ['env'],
  },
};

/**
 * A stdio server names an entry of the operators' catalog (src/stdio-servers), by `catalog_entry` and
 * its `params`, or by spelling out exactly the entry's `command` and `args` (SPEC §2.3's shape). What is
 * launched always comes from the catalog; `env` only fills the secrets the entry declares.
 */
const stdioTransport = z
  .strictObject({
    type: z.literal('stdio'),
    catalog_entry: z
      .string()
      .regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, 'must be a catalog entry id')
      .optional(),
    params: z.record(z.string().max(64), z.string().max(1024)).optional(),
    command: z.enum(stdioRunners, { error: `must be one of ${stdioRunners.join(', ')}` }).optional(),
    args: z.array(z.string().max(4096)).max(64).optional(),
    env: secretEnv,
    /**
     * Runs on this host's desktop relay, not on a worker: `command` and `args` as given (the relay's
     * local policy decides, not the operators' catalog).
     */
    host_id: hostId.optional(),
  })
  .refine((t) => t.catalog_entry !== undefined || t.command !== undefined, {
    message: 'give catalog_entry (an entry of GET /mcp/stdio-catalog), or command and args',
    path: ['catalog_entry'],
  })
  .refine((t) => t.host_id === undefined || (t.command !== undefined && t.catalog_entry === undefined && t.params === undefined), {
    message: 'a server on a host gives command and args (its relay has no catalog)',
    path: ['host_id'],
  })
  .refine(hostEnvRule.check, hostEnvRule.params);

/**
 * A repository the host's relay clones at `ref` (pinned to a commit in its records), installs (npm or
 * uv, or the repository's `server.json`) and runs as a sandboxed stdio server (SPEC §2.3, issue #34).
 */
const repositoryTransport = z
  .strictObject({
    type: z.literal('repository'),
    owner_repo: z
      .string()
      .max(200)
      .regex(/^[A-Za-z0-9_][A-Za-z0-9_.-]*\/[A-Za-z0-9_][A-Za-z0-9_.-]*$/, 'must be owner/name'),
    ref: z
      .string()
      .min(1)
      .max(255)
      .regex(/^[A-Za-z0-9_][A-Za-z0-9_./-]*$/, 'must be a branch, tag or commit (no leading "-" or ".")')
      .refine((r) => !r.includes('..'), 'must not contain ".."'),
    args: z.array(z.string().max(4096)).max(64).default([]),
    env: secretEnv,
    host_id: hostId,
  })
  .refine(hostEnvRule.check, hostEnvRule.params);

const header = z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, 'must be an HTTP header name');

const auth = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('oauth2'), authorizer_id: z.uuid() }),
  z.strictObject({ type: z.literal('api_key'), secret_id: z.uuid({ error: 'must be a secret id (UUID)' }), header }),
  z.strictObject({ type: z.literal('static'), header, value: z.string().min(1) }),
]);

/** `content` of an `application/vnd.platform.mcp-server+json` artifact (SPEC §2.3). */
export const mcpServerContent = z.strictObject({
  transport: z.discriminatedUnion('type', [httpTransport, stdioTransport, repositoryTransport]),
  notes: z.string().optional(),
  auth: auth.optional(),
  /** How long a tool call may go without an answer or a progress notification (docs/decisions.md). */
  timeout_seconds: z.int().min(1).max(3600).optional(),
});
export type McpServerContent = z.infer<typeof mcpServerContent>;
export type StdioTransport = z.infer<typeof stdioTransport>;
export type HttpTransport = z.infer<typeof httpTransport>;
export type RepositoryTransport = z.infer<typeof repositoryTransport>;

/** The host whose relay runs this server, if any. */
export function hostOf(content: McpServerContent): string | undefined {
  const { transport } = content;
  return transport.type === 'http' ? undefined : transport.host_id;
}
