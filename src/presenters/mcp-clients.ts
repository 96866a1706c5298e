/** An MCP client configuration as a person pastes it into Claude, VS Code or Cursor (issue #36). */
import { z } from 'zod';
import type { McpClientContent } from '../artifacts/content-types/mcp-client.js';
import { scopes } from '../identity/principal.js';
import type { ArtifactDoc } from '../store/artifacts.js';

/** The environment variable the api_key snippets read the key from: the key itself is never rendered. */
export const apiKeyEnv = 'PLATFORM_API_KEY';

/** Claude Desktop's bridge reads the whole header value (`Bearer <key>`) from this variable of its own config. */
const desktopHeaderEnv = 'PLATFORM_AUTH_HEADER';

const snippetSchema = z.object({
  client: z.enum(['claude-code', 'claude-desktop', 'vscode', 'cursor']),
  title: z.string(),
  format: z.enum(['shell', 'json', 'text']),
  path: z.string().nullable().describe('Where the snippet goes (a file), or null for a command or a setting.'),
  text: z.string(),
});
export type Snippet = z.infer<typeof snippetSchema>;

export const mcpClientConfigSchema = z
  .object({
    id: z.string(),
    name: z.string().describe("The server's name in the client's configuration."),
    endpoint: z.string().describe("The configuration's own MCP endpoint (Streamable HTTP)."),
    auth: z.object({ type: z.enum(['oauth', 'api_key']), client_id: z.string().optional(), api_key_id: z.string().optional() }),
    api_key_env: z.string().nullable().describe('For api_key: the environment variable the snippets read the key from.'),
    scopes: z.array(z.enum(scopes)),
    workspaces: z.union([z.literal('*'), z.array(z.string())]),
    collections: z.union([z.literal('*'), z.array(z.string())]),
    tools: z.array(z.string()).describe('The tools the endpoint offers (to a caller holding these scopes).'),
    tools_without_scope: z.array(z.string()).describe('Tools the configuration names whose scope it does not grant: never offered.'),
    snippets: z.array(snippetSchema),
  })
  .meta({ id: 'McpClientConfig' });

/** The server's name: the configuration's, else the artifact's title made into one. */
export function serverName(doc: Pick<ArtifactDoc, 'title'>, config: McpClientContent): string {
  if (config.name) return config.name;
  const slug = doc.title
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '') // é → e: the accents NFKD separated
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64)
    .replace(/-+$/, '');
  return slug || 'platform';
}

const json = (value: unknown) => JSON.stringify(value, null, 2);

/** A shell word for a POSIX shell: the name and URL are safe already, quoted all the same. */
const shellWord = (word: string) => (/^[A-Za-z0-9_./:@%+=-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);

/**
 * The snippets for each client. OAuth: the URL alone, the client signs in itself (RFC 9728
 * discovery from the endpoint's 401). API key: an `Authorization: Bearer` header whose value comes
 * from the person's environment or a prompt, never from here (keys are shown once, when created).
 */
export function clientSnippets(name: string, endpoint: string, auth: McpClientContent['auth']): Snippet[] {
  const key = auth.type === 'api_key';
  const claudeCode = ['claude', 'mcp', 'add', '--transport', 'http', name, endpoint];
  if (key) claudeCode.push('--header', `"Authorization: Bearer $${apiKeyEnv}"`);
  const inputId = 'platform-api-key';
  return [
    {
      client: 'claude-code',
      title: 'Claude Code',
      format: 'shell',
      path: null,
      text: claudeCode.map((w) => (w.startsWith('"') ? w : shellWord(w))).join(' '),
    },
    {
      client: 'claude-desktop',
      title: 'Claude Desktop',
      ...(key
        ? {
            // Claude Desktop's remote connectors sign in with OAuth; a fixed header goes through a local
            // bridge, mcp-remote, which fills `${VAR}` in a header from its environment. No argument holds a
            // space: Claude Desktop on Windows passes args to npx unquoted, which would split the header.
            format: 'json' as const,
            path: 'claude_desktop_config.json',
            text: json({
              mcpServers: {
                [name]: {
                  command: 'npx',
                  args: ['-y', 'mcp-remote', endpoint, '--header', `Authorization:\${${desktopHeaderEnv}}`],
                  env: { [desktopHeaderEnv]: 'Bearer <your API key>' },
                },
              },
            }),
          }
        : {
            format: 'text' as const,
            path: null,
            text: `Settings → Connectors → Add custom connector\nName: ${name}\nURL: ${endpoint}`,
          }),
    },
    {
      client: 'vscode',
      title: 'VS Code',
      format: 'json',
      path: '.vscode/mcp.json',
      text: json({
        ...(key ? { inputs: [{ type: 'promptString', id: inputId, description: 'Platform API key', password: true }] } : {}),
        servers: {
          [name]: { type: 'http', url: endpoint, ...(key ? { headers: { Authorization: `Bearer \${input:${inputId}}` } } : {}) },
        },
      }),
    },
    {
      client: 'cursor',
      title: 'Cursor',
      format: 'json',
      path: '~/.cursor/mcp.json',
      text: json({
        mcpServers: { [name]: { url: endpoint, ...(key ? { headers: { Authorization: `Bearer \${env:${apiKeyEnv}}` } } : {}) } },
      }),
    },
  ];
}

/** The rendered configuration: what it grants, where it is served, and the snippets. */
export function presentMcpClientConfig(
  doc: ArtifactDoc,
  config: McpClientContent,
  endpoint: string,
  offered: { tools: string[]; withoutScope: string[] },
): z.infer<typeof mcpClientConfigSchema> {
  const name = serverName(doc, config);
  return {
    id: doc._id,
    name,
    endpoint,
    auth: config.auth,
    api_key_env: config.auth.type === 'api_key' ? apiKeyEnv : null,
    scopes: config.scopes,
    workspaces: config.workspaces,
    collections: config.collections,
    tools: offered.tools,
    tools_without_scope: offered.withoutScope,
    snippets: clientSnippets(name, endpoint, config.auth),
  };
}
