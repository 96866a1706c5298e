import type { Config } from '../kernel/config/env.js';
import type { AppContext } from './context.js';

const loopback = new Set(['localhost', '127.0.0.1', '[::1]']);

/** What the outermost trusted proxy wrote in a list-valued X-Forwarded-* header ('' when none is trusted). */
function forwarded(value: string, trustedHops: number): string {
  if (trustedHops === 0) return '';
  const chain = value
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
  return chain[Math.max(0, chain.length - trustedHops)] ?? '';
}

/**
 * The API's base URL as this client reached it. OAuth clients compare what metadata says (the
 * protected resource, the issuer) with the URL they used, so a client that came in on 127.0.0.1 must
 * not be told `localhost`. The configured PLATFORM_API_URI is the answer unless the request named
 * another host that is also this server: a loopback name on its port, or one of MCP_ALLOWED_HOSTS.
 * Behind TRUST_PROXY_HOPS proxies, X-Forwarded-Host and X-Forwarded-Proto say what the client used.
 * Any other Host gets the configured URL: a request cannot make us advertise a name of its choosing.
 */
export function publicBase(ctx: Pick<AppContext, 'get' | 'protocol'>, config: Config): string {
  const configured = new URL(config.apiUri);
  const forwardedHost = forwarded(ctx.get('x-forwarded-host'), config.TRUST_PROXY_HOPS);
  const host = (forwardedHost || ctx.get('host')).toLowerCase();
  if (!host || host === configured.host) return config.apiUri;
  const forwardedProto = forwarded(ctx.get('x-forwarded-proto'), config.TRUST_PROXY_HOPS).toLowerCase();
  const protocol = forwardedProto === 'https' || forwardedProto === 'http' ? forwardedProto : ctx.protocol;
  const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.split(':')[0]!;
  const port = host.startsWith('[') ? host.slice(host.indexOf(']') + 2) : (host.split(':')[1] ?? '');
  const ours = (loopback.has(name) && port === String(config.PORT)) || config.mcpAllowedHosts.includes(host);
  if (!ours) return config.apiUri;
  return `${protocol}://${host}${configured.pathname.replace(/\/$/, '')}`;
}

/** The MCP endpoint's path: its token audience and metadata differ from the rest of the API's. */
export const mcpPath = '/mcp';

const mcpClientPathPattern = /^\/mcp\/clients\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;

/**
 * The path of an MCP client configuration's own endpoint (issue #36), or undefined when `path` is not
 * one. Each configuration is a protected resource of its own (RFC 9728), `<base>/mcp/clients/<id>`.
 */
export const mcpClientResourcePath = (path: string): string | undefined => (mcpClientPathPattern.test(path) ? path : undefined);

/**
 * The protected resource a request's path belongs to, as a path under the API's base: '' for the API
 * (every REST route), '/mcp' for the MCP endpoint, '/mcp/clients/<id>' for a configuration's endpoint.
 */
export const resourcePathOf = (path: string): string => (path === mcpPath ? mcpPath : (mcpClientResourcePath(path) ?? ''));

/**
 * The resource identifiers (RFC 8707) a token may name to be accepted on this request's path. A token
 * for the API is good on all of it, /mcp and every configuration's endpoint included (a configuration
 * narrows what it can do there); a token for /mcp only there; a token for a configuration's endpoint
 * only on that endpoint (never on /mcp, the REST API or another configuration's endpoint).
 */
export function acceptedAudiences(ctx: Pick<AppContext, 'get' | 'protocol' | 'path'>, config: Config): string[] {
  const bases = [...new Set([config.apiUri, publicBase(ctx, config)])];
  const own = resourcePathOf(ctx.path);
  return own ? [...bases, ...bases.map((b) => `${b}${own}`)] : bases;
}
