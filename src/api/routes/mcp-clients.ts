import { offeredTools } from '../../mcp-server/client-endpoint.js';
import { visibleMcpClient } from '../../operations/mcp-clients.js';
import { mcpClientConfigSchema, presentMcpClientConfig } from '../../presenters/mcp-clients.js';
import { artifactId } from '../artifact-access.js';
import { publicBase } from '../public-url.js';
import type { RouteDef } from '../route.js';
import { mcpClientPath } from './mcp.js';

/** REST routes of the mcp-client content type (issue #36); its MCP endpoint is in mcp.ts, beside /mcp. */
export const mcpClientRoutes: RouteDef[] = [
  {
    method: 'get',
    path: '/artifacts/:id/client-config',
    access: 'artifact:read',
    doc: {
      summary: "An MCP client configuration's endpoint and the snippets for Claude, VS Code and Cursor",
      description:
        'For an application/vnd.platform.mcp-client+json artifact: its endpoint URL (as this request reached the API), the tools it offers, ' +
        'and the configuration to paste into each client. In api_key mode the snippets read the key from the environment or a prompt: ' +
        'the key itself is never rendered (keys are shown once, when created).',
      tags: ['artifacts'],
      response: mcpClientConfigSchema,
    },
    handler: async (ctx) => {
      const { doc, config } = await visibleMcpClient(ctx, artifactId(ctx));
      const endpoint = `${publicBase(ctx, ctx.services.config)}${mcpClientPath(doc._id)}`;
      const { tools, withoutScope } = offeredTools(config);
      ctx.body = presentMcpClientConfig(doc, config, endpoint, { tools, withoutScope });
    },
  },
];
