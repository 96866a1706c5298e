import type { Next } from 'koa';
import { problems } from '../../kernel/errors/problem.js';
import type { AppContext } from '../context.js';
import { codecCors, codecPathPrefix } from './codec-cors.js';

/** What a browser page on an allowed origin may send (preflight answers). */
export const corsAllowedMethods = ['GET', 'POST', 'PATCH', 'DELETE', 'OPTIONS'];
export const corsAllowedHeaders = [
  'Authorization',
  'Content-Type',
  'Mcp-Session-Id',
  'Mcp-Protocol-Version',
  'Last-Event-ID',
  'If-Match',
  'X-On-Behalf-Of',
];
/** Response headers a page may read: the sign-in challenge, MCP's headers, ETag for If-Match, Location of what was created. */
export const corsExposedHeaders = ['WWW-Authenticate', 'Mcp-Session-Id', 'Mcp-Protocol-Version', 'ETag', 'Location'];

/** How long a browser may reuse a preflight answer, in seconds. */
const preflightMaxAge = '600';

/**
 * CORS for browser clients (web MCP clients, the Inspector's UI): the API's own origin and those in
 * MCP_ALLOWED_ORIGINS get Access-Control-* headers; any other origin gets none, and its preflight a
 * 403 problem naming the setting to change (as /mcp answers a foreign Origin). Bearer tokens only,
 * never cookies: no Access-Control-Allow-Credentials. Runs before the router, so a preflight needs
 * no authentication and never reaches a route.
 */
export async function cors(ctx: AppContext, next: Next): Promise<void> {
  // The codec server has its own origins (CODEC_ALLOWED_ORIGINS: the Temporal UI) and headers.
  if (ctx.path.toLowerCase().startsWith(codecPathPrefix)) return codecCors(ctx, next); // the router matches paths case-insensitively
  // Every answer depends on Origin (allowed or not), so shared caches must keep them apart.
  ctx.vary('Origin');
  const origin = ctx.get('origin');
  if (!origin) return next();
  const config = ctx.services.config;
  const allowed = origin === new URL(config.apiUri).origin || config.mcpAllowedOrigins.includes(origin);
  const preflight = ctx.method === 'OPTIONS' && ctx.get('access-control-request-method') !== '';
  if (!allowed) {
    if (preflight) throw problems.forbidden(`Origin ${origin} may not call this API from a browser; add it to MCP_ALLOWED_ORIGINS.`);
    return next();
  }
  ctx.set('Access-Control-Allow-Origin', origin);
  if (preflight) {
    ctx.set('Access-Control-Allow-Methods', corsAllowedMethods.join(', '));
    ctx.set('Access-Control-Allow-Headers', corsAllowedHeaders.join(', '));
    ctx.set('Access-Control-Max-Age', preflightMaxAge);
    ctx.status = 204;
    return;
  }
  ctx.set('Access-Control-Expose-Headers', corsExposedHeaders.join(', '));
  return next();
}
