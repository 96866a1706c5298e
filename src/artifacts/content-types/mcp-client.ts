import { z } from 'zod';
import { scopes, type Scope } from '../../identity/principal.js';
import { uuid } from '../../kernel/json/schemas.js';
import { platformToolNames } from '../../kernel/platform-tools.js';

// `application/vnd.platform.mcp-client+json` (SPEC §2.2, issue #36): a saved connection for an MCP
// client to the platform, what gateways call a virtual server. The platform serves it as its own MCP
// endpoint (`/mcp/clients/{id}`: only these tools, within these scopes and containers) and renders
// the configuration a person pastes into their client (GET /artifacts/{id}/client-config).

const platformTools = new Set<string>(platformToolNames);

/** One of the platform's tools (kernel/platform-tools.ts: the same list in the API and the worker). */
const toolName = z
  .string({ error: 'must be a tool name of the platform' })
  .refine((name) => platformTools.has(name), `is not a tool of the platform; one of ${[...platformTools].sort().join(', ')}`);

/** `*` for every one the caller can see, or a list of ids (duplicates dropped). */
const containerIds = (kind: string) =>
  z
    .union([z.literal('*'), z.array(uuid(`must be a ${kind} id (UUID)`)).max(1000)], {
      error: (issue) => (issue.input === undefined ? 'is required' : `must be "*" or a list of ${kind} ids`),
    })
    .transform((ids) => (ids === '*' ? ids : [...new Set(ids)]));

const scope = z.enum(scopes, { error: `must be one of ${scopes.join(', ')}` });

/**
 * How the client authenticates, which decides the configuration rendered for it, and (with an id)
 * the one credential the endpoint accepts. `oauth`: the client signs in through the platform's
 * authorization server (Claude, VS Code and Cursor do it themselves, registering dynamically, so the
 * client id is often known only afterwards). `api_key`: the client sends an API key as its bearer
 * token (the key is never stored here: keys are shown once).
 */
const auth = z.discriminatedUnion(
  'type',
  [
    z.strictObject({
      type: z.literal('oauth'),
      client_id: z.string().trim().min(1).max(2000).optional().describe('Only this OAuth client may connect.'),
    }),
    z.strictObject({
      type: z.literal('api_key'),
      api_key_id: z
        .string()
        .regex(/^[0-9a-f]{32}$/, 'must be an API key id (32 hex digits, as POST /api-keys answers it)')
        .optional()
        .describe('Only this API key may connect.'),
    }),
  ],
  { error: 'must be {"type":"oauth"} or {"type":"api_key"}, optionally naming the client_id or api_key_id' },
);

/** `content` of an `application/vnd.platform.mcp-client+json` artifact. */
export const mcpClientContent = z.strictObject({
  /** The server's name in the client's configuration; default: from the artifact's title. */
  name: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/, 'must be 1 to 64 letters, digits, - or _, starting with a letter or digit')
    .optional(),
  description: z.string().max(2000).optional(),
  workspaces: containerIds('workspace'),
  collections: containerIds('collection'),
  tools: z
    .array(toolName)
    .min(1, 'must name at least one tool')
    .max(100)
    .transform((names) => [...new Set(names)]),
  scopes: z
    .array(scope)
    .min(1, 'must grant at least one scope')
    .transform((list) => scopes.filter((s) => list.includes(s)) as Scope[]),
  auth,
});
export type McpClientContent = z.infer<typeof mcpClientContent>;
