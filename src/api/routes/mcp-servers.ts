import { z } from 'zod';
import { artifactSchema, presentArtifact, stdioCatalogSchema } from '../../presenters/index.js';
import { visibleArtifact } from '../../operations/artifacts.js';
import { listServers } from '../../operations/mcp-catalog.js';
import { openArtifact } from '../../operations/mcp-lifecycle.js';
import { importResource, readResource, resourceImportBody, resourceReadBody } from '../../operations/mcp-servers.js';
import { answer } from '../answer.js';
import { idempotencyKeyOf, idParam, parse } from '../validate.js';
import { artifactId } from '../artifact-access.js';
import { route, type RouteDef } from '../route.js';
import { stdioServers } from '../../stdio-servers/index.js';
import { presentStdioCatalog } from '../../presenters/index.js';
import { byStatus } from '../openapi/responses.js';
import { mcpServerListSchema, openedArtifactSchema, resourceReadSchema } from '../../presenters/mcp-servers.js';
import { toolCallSchema } from '../../presenters/invocations.js';

const catalogQuery = z.object({ refresh: z.enum(['true', 'false']).default('false') });

/** The platform as an MCP client (SPEC §4.2, §4.5): reading and listing external servers (calls: invocations.ts). */
export const mcpServerRoutes: RouteDef[] = [
  route({
    method: 'post',
    path: '/artifacts/:id/op/resources_read',
    access: 'artifact:invoke',
    doc: {
      summary: 'Read a resource of an external MCP server',
      errors: [409],
      response: byStatus({ 200: resourceReadSchema, 202: toolCallSchema }),
    },
    body: 'json',
    request: resourceReadBody,
    handler: async (ctx, _query, body) => answer(ctx, await readResource(ctx, artifactId(ctx), body(), idempotencyKeyOf(ctx))),
  }),
  route({
    method: 'post',
    path: '/artifacts/:id/op/resources_import',
    access: 'artifact:invoke',
    doc: { summary: 'Import a resource of an external MCP server as a draft', status: 201, errors: [409], response: artifactSchema },
    body: 'json',
    request: resourceImportBody,
    handler: async (ctx, _query, body) => {
      const doc = await importResource(ctx, artifactId(ctx), body());
      ctx.status = 201;
      ctx.set('Location', `/artifacts/${doc._id}`);
      ctx.body = presentArtifact(doc);
    },
  }),
  {
    method: 'post',
    path: '/artifacts/:id/open',
    access: 'artifact:read',
    doc: { summary: "Open an artifact in its type's viewer", response: openedArtifactSchema },
    handler: async (ctx) => {
      const { doc, container } = await visibleArtifact(ctx, artifactId(ctx));
      ctx.body = { artifact: presentArtifact(doc), ...(await openArtifact(ctx, doc, container)) };
    },
  },
  {
    method: 'get',
    path: '/mcp/stdio-catalog',
    access: 'artifact:read',
    doc: { summary: 'The catalog of stdio MCP servers', response: stdioCatalogSchema },
    handler: (ctx) => {
      ctx.body = presentStdioCatalog(stdioServers(ctx.services.config));
    },
  },
  route({
    method: 'get',
    path: '/mcp/servers',
    access: 'artifact:read',
    doc: { summary: 'List registered MCP servers', response: mcpServerListSchema },
    query: catalogQuery,
    handler: async (ctx, { refresh }) => {
      ctx.body = await listServers(ctx, { refresh: refresh === 'true' });
    },
  }),
  route({
    method: 'get',
    path: '/mcp/workspaces/:id/servers',
    access: 'artifact:read',
    doc: { summary: "List a workspace's MCP servers", response: mcpServerListSchema },
    query: catalogQuery,
    handler: async (ctx, { refresh }) => {
      const { id } = parse(idParam, ctx.params, 'path');
      ctx.body = await listServers(ctx, { workspaceId: id, refresh: refresh === 'true' });
    },
  }),
];
