import { z } from 'zod';

/** Commands a stdio MCP server may be started with (SPEC §2.3 rule 1, §8). */
export const allowedStdioCommands = ['npx', 'uvx', 'python', 'python3', 'node', 'deno'] as const;

const httpTransport = z.strictObject({
  type: z.literal('http'),
  well_known: z.url({ protocol: /^https?$/ }),
});

/** An env value held as a stored secret (POST /secrets), resolved only when the server is started. */
export const secretRef = z.strictObject({ secret_id: z.uuid({ error: 'must be a secret id (UUID)' }) });

const stdioTransport = z.strictObject({
  type: z.literal('stdio'),
  command: z.enum(allowedStdioCommands, { error: `must be one of ${allowedStdioCommands.join(', ')}` }),
  args: z.array(z.string()).default([]),
  env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name'), z.union([z.string(), secretRef])).default({}),
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
});
export type McpServerContent = z.infer<typeof mcpServerContent>;
