/** The platform as an MCP client: the servers it lists, what a resource read returns, what opening an artifact starts. */
import { z } from 'zod';
import { mcpServerContent } from '../artifacts/content-types/mcp-server.js';
import { genericMcpIcon } from '../mcp-client/icons.js';
import type { ArtifactDoc } from '../store/artifacts.js';
import type { CatalogDoc } from '../store/mcp-catalog.js';
import { artifactSchema } from './index.js';
import { openObject, timestamp } from './schemas.js';

const catalogTool = z.object({
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  input_schema: openObject,
  output_schema: openObject.optional(),
  annotations: openObject.optional(),
  icon: z.string().optional(),
});

const catalogResource = z.object({
  uri: z.string(),
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  mime_type: z.string().optional(),
  icon: z.string(),
});

/** One server of the catalog: the built-in platform toolset first, then the registered servers, as last listed. */
export const mcpServerSchema = z
  .object({
    id: z.string(),
    title: z.string(),
    workspace_id: z.string().nullable().describe('Null for the built-in platform toolset.'),
    builtin: z.boolean(),
    transport: z.string(),
    server_info: z.looseObject({ name: z.string(), version: z.string(), title: z.string().optional() }).nullable(),
    icon: z.string(),
    instructions: z.string().optional(),
    health: z.object({
      status: z.enum(['ok', 'error', 'unknown']),
      checked_at: timestamp.nullable(),
      error: z.string().optional(),
      latency_ms: z.number().optional(),
      protocol_version: z
        .string()
        .optional()
        .describe('The MCP revision the last listing negotiated (e.g. 2026-07-28, 2025-11-25); absent for a server on a host.'),
    }),
    tools: z.array(catalogTool),
    resources: z.array(catalogResource),
    content_types: z.array(openObject).describe('The §2.10 content types the server defines.'),
    refreshed_at: timestamp.nullable().optional(),
  })
  .meta({ id: 'McpServer' });

export const mcpServerListSchema = z
  .object({
    servers: z.array(mcpServerSchema),
    truncated: z.boolean().describe('More servers than one answer lists.'),
  })
  .meta({ id: 'McpServerList' });

/** `POST /artifacts/{id}/op/resources_read` when the server answered within the wait. */
export const resourceReadSchema = z
  .object({
    server_id: z.string(),
    uri: z.string(),
    contents: z.array(z.looseObject({ uri: z.string(), mimeType: z.string().optional() })),
  })
  .meta({ id: 'ResourceRead' });

/** `POST /artifacts/{id}/open`: the artifact, its type's rendering hints and viewer, and the `on_open` call. */
export const openedArtifactSchema = z
  .object({
    artifact: artifactSchema,
    type: openObject
      .nullable()
      .describe(
        "The §2.10 type definition of the artifact's content type: the platform's own for its types (SPEC §2.2), else the one a content-type server defines.",
      ),
    viewer: z.object({ server_id: z.string(), uri: z.string() }).nullable(),
    on_open: z.union([
      z.object({ status: z.literal('skipped'), reason: z.string().optional() }),
      z.object({ status: z.literal('completed'), invocation_id: z.string(), result: openObject }),
      z.object({ status: z.literal('running'), invocation_id: z.string(), poll: z.string() }),
    ]),
  })
  .meta({ id: 'OpenedArtifact' });

/** A registered server as the catalog lists it: its last listing (tools, resources, health), or unknown until listed. */
export function presentMcpServer(doc: ArtifactDoc, entry: CatalogDoc | undefined): z.output<typeof mcpServerSchema> {
  const transport = mcpServerContent.safeParse(JSON.parse(doc.content)).data?.transport.type ?? 'unknown';
  return {
    id: doc._id,
    title: doc.title,
    workspace_id: doc.collection_id,
    builtin: false,
    transport,
    server_info: entry?.server_info ?? null,
    icon: entry?.icon ?? genericMcpIcon,
    ...(entry?.instructions ? { instructions: entry.instructions } : {}),
    health: entry
      ? {
          status: entry.revision === doc.revision ? entry.health.status : 'unknown',
          checked_at: entry.health.checked_at.toISOString(),
          ...(entry.health.error ? { error: entry.health.error } : {}),
          ...(entry.health.latency_ms !== undefined ? { latency_ms: entry.health.latency_ms } : {}),
          ...(entry.health.protocol_version ? { protocol_version: entry.health.protocol_version } : {}),
        }
      : { status: 'unknown', checked_at: null },
    tools: entry?.tools ?? [],
    resources: entry?.resources ?? [],
    content_types: entry?.content_types ?? [],
    refreshed_at: entry?.refreshed_at.toISOString() ?? null,
  };
}
