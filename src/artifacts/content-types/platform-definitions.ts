import type { TypeDefinition } from './type-definition.js';
import { baseType } from './base-type.js';

/** What each platform-owned type (SPEC §2.2) is, in the §2.10 shape a content-type server ships for its own types. */
const described = {
  'application/vnd.platform.mcp-server+json': ['MCP server', '🔌', '#4f46e5', 'External MCP server registration'],
  'application/vnd.platform.mcp-client+json': [
    'MCP client',
    '🧩',
    '#0891b2',
    'A saved MCP client connection: its own endpoint with chosen tools, scopes and sources',
  ],
  'application/vnd.platform.authorizer+json': ['Authorizer', '🔐', '#b45309', 'OAuth provider configuration'],
  'application/vnd.platform.chat+json': ['Chat', '💬', '#16a34a', 'A conversation grounded in the knowledge base, one revision per turn'],
  'application/vnd.platform.view+json': ['View', '🔭', '#7c3aed', 'A saved filter over workspaces whose results update live'],
  'application/vnd.platform.stream+json': ['Stream', '📹', '#dc2626', 'An RTMP stream source and what the platform records from it'],
  'application/vnd.platform.host+json': ['Host', '🖥️', '#475569', "A person's machine whose desktop relay runs MCP servers"],
  'application/vnd.platform.transform+json': ['Transform', '⚙️', '#ca8a04', 'Operator: a reusable multi-step workflow'],
  'application/vnd.platform.automation+json': [
    'Automation',
    '⏱️',
    '#0d9488',
    'Runs an agent, transform or tool when workspace events match',
  ],
} as const;

/**
 * The platform's own type definitions. Their viewer key is `platform/<name>`: the console renders
 * them itself (web/console/types/), no server serves them.
 */
export function platformTypeDefinition(contentType: string): TypeDefinition | null {
  const mime = baseType(contentType);
  const entry = (described as Record<string, readonly [string, string, string, string]>)[mime];
  if (!entry) return null;
  const [label, icon, color, description] = entry;
  const name = /^application\/vnd\.platform\.(.+)\+json$/.exec(mime)![1]!;
  return { mime, version: 1, inherits: ['application/json'], description, ui: { label, icon, color, viewer: `platform/${name}` } };
}
