import { z } from 'zod';
import { problems, type InvalidParam } from '../errors/problem.js';
import { authorizerContent } from './authorizer.js';
import { mcpServerContent } from './mcp-server.js';

const jsonObject = z.record(z.string(), z.unknown());

/**
 * The platform-owned content types of SPEC §2.2, each with the zod schema its JSON `content` must
 * satisfy. Types whose own issue has not come yet accept any JSON object.
 */
export const platformContentTypes = {
  'application/vnd.platform.mcp-server+json': mcpServerContent,
  'application/vnd.platform.mcp-client+json': jsonObject,
  'application/vnd.platform.authorizer+json': authorizerContent,
  'application/vnd.platform.chat+json': jsonObject,
  'application/vnd.platform.view+json': jsonObject,
  'application/vnd.platform.stream+json': jsonObject,
  'application/vnd.platform.host+json': jsonObject,
  'application/vnd.platform.transform+json': jsonObject,
} as const;
export type PlatformContentType = keyof typeof platformContentTypes;

const platformPrefix = 'application/vnd.platform.';
export const mcpServerType = 'application/vnd.platform.mcp-server+json';

export interface ContentPolicy {
  allowStdioMcpServers: boolean;
}

/**
 * Validates `content` for its `content_type`. Platform types must hold a JSON object matching their
 * schema; other JSON types (`application/json`, `+json`) must hold valid JSON; anything else is opaque
 * text. Returns the content normalised (defaults applied, re-serialised) for platform types.
 */
export function validateContent(contentType: string, content: string, policy: ContentPolicy): string {
  const base = contentType.split(';')[0]!.trim().toLowerCase();
  if (base.startsWith(platformPrefix)) {
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
    if (base === mcpServerType && (parsed.data as { transport: { type: string } }).transport.type === 'stdio' && !policy.allowStdioMcpServers) {
      throw problems.validation('stdio MCP servers are disabled on this deployment (ALLOW_STDIO_MCP_SERVERS=false).', [
        { name: 'content.transport.type', reason: 'stdio is not allowed here' },
      ]);
    }
    return JSON.stringify(parsed.data);
  }
  if (base === 'application/json' || base.endsWith('+json')) parseJson(content);
  return content;
}

function parseJson(content: string): unknown {
  try {
    return JSON.parse(content);
  } catch {
    throw problems.validation('content must be a JSON-encoded string for this content_type.', [
      { name: 'content', reason: 'is not valid JSON' },
    ]);
  }
}
