import { scopes, type Principal, type Scope } from '../../identity/principal.js';
import type { Config } from '../../kernel/config/env.js';
import { problemTypePrefix } from '../../kernel/errors/problem.js';
import { Problem, problems } from '../../kernel/errors/problem.js';
import { platformIcon, platformInfo } from '../../kernel/platform-info.js';
import { serveMcp } from '../../mcp-server/server.js';
import { missingScope, tools } from '../../mcp-server/tools.js';
import { mcpToolCalls } from '../../observability/metrics.js';
import type { AppContext, AuthedContext } from '../context.js';
import { publicBase } from '../public-url.js';
import type { RouteDef } from '../route.js';
import { mcpPath, protectedResourceMetadataUrl, stillAuthenticated } from '../middleware/authenticate.js';
import { mcpDiscoverySchema } from '../../presenters/discovery.js';
import { mcpClientEndpoint } from '../../operations/mcp-clients.js';
import { serverName } from '../../presenters/mcp-clients.js';
import { offeredTools, type EndpointLimits } from '../../mcp-server/client-endpoint.js';
import { idParam, parse } from '../validate.js';

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

const toolByName = new Map(tools.map((t) => [t.name, t]));
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The first tools/call in the body (one message or a batch) whose tool needs a scope the principal
 * lacks. `offered`: the endpoint's tools, when it serves fewer than all (any other is unknown there).
 */
function refusedCall(
  body: unknown,
  principal: Principal,
  offered?: ReadonlySet<string>,
): { id: string | number | null; tool: string; scope: Scope } | undefined {
  for (const message of Array.isArray(body) ? body : [body]) {
    if (!isObject(message) || message.method !== 'tools/call' || !isObject(message.params)) continue;
    const name = message.params.name;
    const tool = typeof name === 'string' && (!offered || offered.has(name)) ? toolByName.get(name) : undefined;
    const scope = tool && missingScope(principal.scopes, tool);
    if (!scope) continue;
    const id = typeof message.id === 'string' || typeof message.id === 'number' ? message.id : null;
    return { id, tool: tool.name, scope };
  }
  return undefined;
}

/**
 * A tools/call whose tool needs a scope the token lacks, in either protocol era: 403 with an RFC 6750
 * `insufficient_scope` challenge, which the MCP clients answer by authorizing again for more (step-up).
 * The challenge's `scope` is what the client should ask for: the token's scopes (those the
 * authorization server grants) plus the missing one. An API key or server credential cannot gain a
 * scope by authorizing again; it is challenged all the same, and its client decides (docs/decisions.md).
 * The body is a JSON-RPC error for the request, the problem in `data`: a client that does not step up
 * (Python's, without OAuth) reports it as the request's error.
 */
function challengeScope(ctx: AuthedContext, endpoint?: { id: string; principal: Principal; tools: ReadonlySet<string> }): boolean {
  const principal = ctx.state.principal;
  const refused = refusedCall(ctx.state.body, endpoint?.principal ?? principal, endpoint?.tools);
  if (!refused) return false;
  const wanted = scopes.filter((s) => s === refused.scope || principal.scopes.coarse.has(s));
  const detail = `The tool ${refused.tool} needs the ${refused.scope} scope, which your token does not carry.`;
  // An MCP client configuration's endpoint is a protected resource of its own (its 401 names the same
  // metadata, authenticate.ts): a client steps up for a token good only there.
  const metadata = protectedResourceMetadataUrl(publicBase(ctx, ctx.services.config), endpoint ? mcpClientPath(endpoint.id) : mcpPath);
  mcpToolCalls.inc({ tool: refused.tool, outcome: 'refused' });
  ctx.status = 403;
  ctx.set(
    'WWW-Authenticate',
    `Bearer error="insufficient_scope", scope="${wanted.join(' ')}", resource_metadata="${metadata}", error_description="${detail}"`,
  );
  ctx.body = {
    jsonrpc: '2.0',
    id: refused.id,
    error: {
      code: -32600,
      message: detail,
      data: { type: `${problemTypePrefix}insufficient-scope`, status: 403, detail, required_scope: refused.scope },
    },
  };
  return true;
}

/** Serves one request with the MCP server, as `principal` (the caller, or the caller within an MCP client configuration). */
async function serve(
  ctx: AuthedContext,
  principal: Principal,
  options: { reauthenticate: () => Promise<Principal | null>; limits?: EndpointLimits },
): Promise<void> {
  ctx.respond = false;
  await serveMcp(
    {
      services: ctx.services,
      state: { principal, requestId: ctx.state.requestId, channel: 'mcp', publicBase: publicBase(ctx, ctx.services.config) },
    },
    ctx.req,
    ctx.res,
    ctx.state.body,
    options,
  );
}

/** The path of an MCP client configuration's own endpoint (issue #36). */
export const mcpClientPath = (id: string) => `${mcpPath}/clients/${id}`;

export const mcpRoutes: RouteDef[] = [
  {
    method: 'post',
    path: mcpPath,
    access: 'authenticated',
    body: 'json-rpc',
    /**
     * Stateless Streamable HTTP, protocol 2026-07-28 and the 2025 revisions: a server per request,
     * answered as JSON, so any replica can serve any call and no caller state outlives its request
     * (mcp-server/server.ts). Browsers on other origins: CORS (middleware/cors.ts). A call to a tool the
     * token's scopes do not allow is refused here, before any MCP server runs (challengeScope); tools
     * check their scopes again and answer other failures as tool errors.
     */
    guard: (ctx) => checkHostAndOrigin(ctx, ctx.services.config),
    handler: async (ctx) => {
      if (challengeScope(ctx)) return;
      await serve(ctx, ctx.state.principal, { reauthenticate: () => stillAuthenticated(ctx) });
    },
  },
  {
    method: 'post',
    path: `${mcpPath}/clients/:id`,
    access: 'authenticated',
    body: 'json-rpc',
    doc: {
      summary: "An MCP client configuration's own MCP endpoint (Streamable HTTP)",
      description:
        "The platform's MCP server limited to what the configuration (an application/vnd.platform.mcp-client+json artifact) says: " +
        "only its tools, within the intersection of the caller's scopes and its scopes, and of the caller's workspaces and collections and its own. " +
        'The caller must be able to read the configuration (404 otherwise), and be the credential it is tied to when it names one (403). ' +
        'The configuration is read on every request: an edit applies to the next one.',
      tags: ['mcp'],
      errors: [403, 404, 409],
    },
    /** As /mcp: DNS-rebinding protection first; then the configuration, read for this request. */
    guard: (ctx) => checkHostAndOrigin(ctx, ctx.services.config),
    handler: async (ctx) => {
      const id = parse(idParam, ctx.params, 'path').id;
      const endpoint = await mcpClientEndpoint(ctx, id);
      const limits = { name: serverName(endpoint.doc, endpoint.config), tools: new Set(offeredTools(endpoint.config).tools) };
      if (challengeScope(ctx, { id, principal: endpoint.principal, tools: limits.tools })) return;
      await serve(ctx, endpoint.principal, {
        limits,
        // A stream that outlives its request (subscriptions/listen) rechecks the credentials and the configuration as it is then.
        reauthenticate: async () => {
          const caller = await stillAuthenticated(ctx);
          if (!caller) return null;
          const now = await mcpClientEndpoint({ services: ctx.services, state: { ...ctx.state, principal: caller } }, id).catch(
            (err: unknown) => {
              if (err instanceof Problem) return null;
              throw err;
            },
          );
          return now?.principal ?? null;
        },
      });
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
