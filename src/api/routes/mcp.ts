import type { Config } from '../../kernel/config/env.js';
import { problems } from '../../kernel/errors/problem.js';
import { platformIcon, platformInfo } from '../../kernel/platform-info.js';
import { serveMcp } from '../../mcp-server/server.js';
import { tools } from '../../mcp-server/tools.js';
import type { AppContext } from '../context.js';
import { publicBase } from '../public-url.js';
import type { RouteDef } from '../route.js';
import { mcpPath } from '../middleware/authenticate.js';
import { mcpDiscoverySchema } from '../../presenters/discovery.js';

const loopback = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * DNS-rebinding protection: the Host must be this API's (or a loopback name on its port), and a
 * browser's Origin must be the API's own or one listed in MCP_ALLOWED_ORIGINS.
 */
function checkHostAndOrigin(ctx: AppContext, config: Config): void {
  const api = new URL(config.apiUri);
  const host = ctx.get('host').toLowerCase();
  const [name, port = ''] = host.startsWith('[')
    ? [host.slice(0, host.indexOf(']') + 1), host.slice(host.indexOf(']') + 2)]
    : host.split(':');
  const defaultPort = api.protocol === 'https:' ? '443' : '80';
  const hostOk =
    host === api.host ||
    host === `${api.hostname}:${api.port || defaultPort}` ||
    (loopback.has(name!) && port === String(config.PORT)) ||
    config.mcpAllowedHosts.includes(host);
  if (!hostOk) throw problems.forbidden(`Host ${host} is not this server: requests to ${mcpPath} must name it as ${api.host}.`);
  const origin = ctx.get('origin');
  if (origin && origin !== api.origin && !config.mcpAllowedOrigins.includes(origin)) {
    throw problems.forbidden(`Origin ${origin} may not call ${mcpPath}; add it to MCP_ALLOWED_ORIGINS.`);
  }
}

export const mcpRoutes: RouteDef[] = [
  {
    method: 'post',
    path: mcpPath,
    access: 'authenticated',
    body: 'json-rpc',
    /**
     * Stateless Streamable HTTP, protocol 2026-07-28 and the 2025 revisions: a server per request,
     * answered as JSON, so any replica can serve any call and no caller state outlives its request
     * (mcp-server/server.ts). Browsers on other origins: CORS (middleware/cors.ts). Tools check their own
     * scopes and answer failures as tool errors.
     */
    guard: (ctx) => checkHostAndOrigin(ctx, ctx.services.config),
    handler: async (ctx) => {
      ctx.respond = false;
      await serveMcp(
        {
          services: ctx.services,
          state: {
            principal: ctx.state.principal,
            requestId: ctx.state.requestId,
            channel: 'mcp',
            publicBase: publicBase(ctx, ctx.services.config),
          },
        },
        ctx.req,
        ctx.res,
        ctx.state.body,
      );
    },
  },
  // GET (a server stream) and DELETE (a session) are not offered by a stateless server: they, and
  // any other method, get the router's 405 with `Allow: POST`, as every route's wrong method does.
  {
    method: 'get',
    path: '/.well-known/mcp.json',
    access: 'public',
    doc: { summary: 'MCP server discovery', tags: ['discovery'], response: mcpDiscoverySchema },
    handler: (ctx) => {
      const base = new URL(ctx.services.config.apiUri).pathname.replace(/\/$/, '');
      ctx.body = {
        name: platformInfo.name,
        version: platformInfo.version,
        endpoints: { streamable_http: `${base}${mcpPath}` },
        tools: tools.map((t) => t.name),
        icon: platformIcon,
      };
    },
  },
];
