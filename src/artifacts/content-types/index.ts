import { z } from 'zod';
import { problems, type InvalidParam } from '../../kernel/errors/problem.js';
import { authorizerContent } from './authorizer.js';
import { mcpServerContent, type McpServerContent, type StdioTransport } from './mcp-server.js';
import { transformContent } from './transform.js';
import { automationContent } from './automation.js';
import { chatContent } from './chat.js';
import { viewContent } from './view.js';
import { streamContent } from './stream.js';
import { mcpClientContent } from './mcp-client.js';
import { baseType, isPlatformType } from './base-type.js';
import { agentId, agents } from '../../invocations/agents/registry.js';
import { CatalogMismatch, type StdioServers } from '../../stdio-servers/index.js';
import { jsonLimits, jsonViolation, pathName } from '../../kernel/json/limits.js';

/** `application/vnd.platform.host+json`: a person's machine whose desktop relay runs MCP servers (issue #34). */
const hostContent = z.strictObject({ notes: z.string().max(4000).optional() });

/**
 * The platform-owned content types of SPEC §2.2, each with the zod schema its JSON `content` must
 * satisfy.
 */
export const platformContentTypes = {
  'application/vnd.platform.mcp-server+json': mcpServerContent,
  'application/vnd.platform.mcp-client+json': mcpClientContent,
  'application/vnd.platform.authorizer+json': authorizerContent,
  'application/vnd.platform.chat+json': chatContent,
  'application/vnd.platform.view+json': viewContent,
  'application/vnd.platform.stream+json': streamContent,
  'application/vnd.platform.host+json': hostContent,
  'application/vnd.platform.transform+json': transformContent(new Set(agents.map((a) => a.name))),
  'application/vnd.platform.automation+json': automationContent(new Set(agents.flatMap((a) => [a.name, agentId(a.name)]))),
} as const;
export type PlatformContentType = keyof typeof platformContentTypes;

export const mcpServerType = 'application/vnd.platform.mcp-server+json';
export const authorizerType = 'application/vnd.platform.authorizer+json';
export const transformType = 'application/vnd.platform.transform+json';
export const hostType = 'application/vnd.platform.host+json';
export const chatType = 'application/vnd.platform.chat+json';
export const viewType = 'application/vnd.platform.view+json';
export const streamType = 'application/vnd.platform.stream+json';
export const mcpClientType = 'application/vnd.platform.mcp-client+json';

export { baseType, isPlatformType } from './base-type.js';
export { platformTypeDefinition } from './platform-definitions.js';

export interface ContentPolicy {
  /** The operators' stdio catalog, or why stdio servers are off here. */
  stdio: StdioServers;
  /** Collections may be shared: they carry secret references only, never raw credentials. */
  inCollection: boolean;
}

/**
 * Validates `content` for its `content_type`. Platform types must hold a JSON object matching their
 * schema; other JSON types (`application/json`, `+json`) must hold valid JSON; anything else is opaque
 * text. Returns the content normalised (defaults applied, re-serialised) for platform types.
 */
export function validateContent(contentType: string, content: string, policy: ContentPolicy): string {
  const base = baseType(contentType);
  if (isPlatformType(base)) {
    const schema = platformContentTypes[base as PlatformContentType];
    if (!schema) {
      throw problems.validation(`Unknown platform content type ${base}.`, [
        { name: 'content_type', reason: `must be one of ${Object.keys(platformContentTypes).join(', ')}` },
      ]);
    }
    const parsed = schema.safeParse(parseJson(content));
    if (!parsed.success) {
      const params: InvalidParam[] = parsed.error.issues.map((i) => ({
        name: ['content', ...i.path.map(String)].join('.'),
        reason: i.message,
      }));
      throw problems.validation(`content is not a valid ${base}: ${params[0]!.name} ${params[0]!.reason}`, params);
    }
    if (base === mcpServerType) return JSON.stringify(checkMcpServer(parsed.data as McpServerContent, policy));
    return JSON.stringify(parsed.data);
  }
  if (base === 'application/json' || base.endsWith('+json')) parseJson(content);
  return content;
}

/** The content's JSON, bounded in depth before anything that recurses (zod, re-serialising) sees it. */
function parseJson(content: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(content);
  } catch {
    throw problems.validation('content must be a JSON-encoded string for this content_type.', [
      { name: 'content', reason: 'is not valid JSON' },
    ]);
  }
  const tooDeep = jsonViolation(value, { maxDepth: jsonLimits.storedDepth });
  if (tooDeep)
    throw problems.validation(`content ${tooDeep.reason}.`, [{ name: pathName(tooDeep.path, ['content']), reason: tooDeep.reason }]);
  return value;
}

/** The registration as stored: a stdio transport resolved to its catalog entry, or a refusal naming the field. */
function checkMcpServer(server: McpServerContent, policy: ContentPolicy): McpServerContent {
  // A server on a host runs on its person's relay, under their local policy: the operators' catalog does not apply.
  const transport =
    server.transport.type === 'stdio' && server.transport.host_id === undefined
      ? stdioLaunch(server.transport, policy.stdio)
      : server.transport;
  const { auth } = server;
  if (policy.inCollection && auth?.type === 'static') {
    throw problems.validation('A collection carries no raw secrets: store them with POST /secrets and reference them.', [
      { name: 'content.auth', reason: 'static credentials are for development; use api_key or oauth2 in a collection' },
    ]);
  }
  return { ...server, transport };
}

/** A stdio transport matched to the catalog entry it names, stored with the entry's own launch. */
function stdioLaunch(transport: StdioTransport, stdio: StdioServers): StdioTransport {
  if (stdio.off !== null) throw problems.validation(stdio.off, [{ name: 'content.transport.type', reason: 'stdio is not available here' }]);
  let launch;
  try {
    launch = stdio.catalog.match(transport);
  } catch (err) {
    if (!(err instanceof CatalogMismatch)) throw err;
    throw problems.validation(`content.transport.${err.field} ${err.message}.`, [
      { name: `content.transport.${err.field}`, reason: err.message },
    ]);
  }
  const { entry, params, args } = launch;
  return { type: 'stdio', catalog_entry: entry.id, params, command: entry.command, args, env: transport.env };
}

/** Every stored secret that typed content references, with the field that names it. */
export function secretReferences(contentType: string, content: string): { id: string; field: string }[] {
  const base = baseType(contentType);
  if (base === mcpServerType) {
    const { transport, auth } = JSON.parse(content) as McpServerContent;
    const refs: { id: string; field: string }[] = [];
    if (transport.type !== 'http') {
      for (const [name, value] of Object.entries(transport.env)) {
        if (typeof value !== 'string') refs.push({ id: value.secret_id, field: `content.transport.env.${name}` });
      }
    }
    if (auth?.type === 'api_key') refs.push({ id: auth.secret_id, field: 'content.auth.secret_id' });
    return refs;
  }
  if (base === streamType) {
    // A pulled source may need no key; a pushed one always names one (the schema says so).
    const { key_secret_id } = JSON.parse(content) as { key_secret_id?: string };
    return key_secret_id ? [{ id: key_secret_id, field: 'content.key_secret_id' }] : [];
  }
  if (base === authorizerType) {
    const { secret_id } = JSON.parse(content) as { secret_id?: string };
    return secret_id ? [{ id: secret_id, field: 'content.secret_id' }] : [];
  }
  return [];
}
