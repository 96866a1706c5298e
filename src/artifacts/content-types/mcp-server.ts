import { z } from 'zod';

import { stdioRunners } from '../../stdio-servers/catalog.js';

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
    env: z
      .record(
        envName,
        z.strictObject(
          { secret_id: z.uuid({ error: 'must be a secret id (UUID)' }) },
          { error: 'must be a secret reference ({"secret_id": ...}): store the value with POST /secrets' },
        ),
      )
      .default({}),
  })
  .refine((t) => t.catalog_entry !== undefined || t.command !== undefined, {
    message: 'give catalog_entry (an entry of GET /mcp/stdio-catalog), or command and args',
    path: ['catalog_entry'],
  });

const header = z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, 'must be an HTTP header name');

const auth = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('oauth2'), authorizer_id: z.uuid() }),
  z.strictObject({ type: z.literal('api_key'), secret_id: z.uuid({ error: 'must be a secret id (UUID)' }), header }),
  z.strictObject({ type: z.literal('static'), header, value: z.string().min(1) }),
]);

/** `content` of an `application/vnd.platform.mcp-server+json` artifact (SPEC §2.3). */
export const mcpServerContent = z.strictObject({
  transport: z.discriminatedUnion('type', [httpTransport, stdioTransport]),
  notes: z.string().optional(),
  auth: auth.optional(),
  /** How long a tool call may go without an answer or a progress notification (docs/decisions.md). */
  timeout_seconds: z.int().min(1).max(3600).optional(),
});
export type McpServerContent = z.infer<typeof mcpServerContent>;
export type StdioTransport = z.infer<typeof stdioTransport>;
export type HttpTransport = z.infer<typeof httpTransport>;
