import type { Next } from 'koa';
import { problems } from '../../kernel/errors/problem.js';
import type { AppContext } from '../context.js';

/** The codec server's paths: the Temporal UI calls `<endpoint>/encode` and `<endpoint>/decode`. */
export const codecPathPrefix = '/codec/';
/** The routes a browser calls with the platform's session cookie (credentials included) instead of a bearer token. */
export const codecSessionPrefix = '/codec/session/';
/**
 * What the Temporal UI (2.54) sends: its access token and, with it, Authorization-Extras (when it passes
 * its access token; the platform reads only Authorization), the JSON body, and the
 * namespace it shows. A header left out here would fail the UI's preflight, so every call.
 */
export const codecAllowedHeaders = ['Authorization', 'Authorization-Extras', 'Content-Type', 'X-Namespace'];

/** The Temporal UI origins of CODEC_ALLOWED_ORIGINS, exact (scheme, host and port); no wildcard. */
export const codecOrigins = (value: string): string[] =>
  value
    .split(',')
    .map((v) => v.trim().replace(/\/$/, ''))
    .filter(Boolean);

/**
 * CORS for the codec server, in place of the API's own (api/middleware/cors.ts) on /codec/*: only the
 * configured Temporal UI origins get Access-Control-* headers (not MCP_ALLOWED_ORIGINS, not even the
 * API's own origin, which has no business decoding payloads); a preflight from any other origin is a
 * 403 problem with none. Credentials (the session cookie) are allowed under /codec/session/ only.
 */
export async function codecCors(ctx: AppContext, next: Next): Promise<void> {
  ctx.vary('Origin');
  const origin = ctx.get('origin');
  if (!origin) return next();
  const allowed = codecOrigins(ctx.services.config.CODEC_ALLOWED_ORIGINS).includes(origin);
  const preflight = ctx.method === 'OPTIONS' && ctx.get('access-control-request-method') !== '';
  if (!allowed) {
    if (preflight)
      throw problems.forbidden(`Origin ${origin} may not call the codec server from a browser; add it to CODEC_ALLOWED_ORIGINS.`);
    return next();
  }
  ctx.set('Access-Control-Allow-Origin', origin);
  if (ctx.path.startsWith(codecSessionPrefix)) ctx.set('Access-Control-Allow-Credentials', 'true');
  if (preflight) {
    ctx.set('Access-Control-Allow-Methods', 'POST, OPTIONS');
    ctx.set('Access-Control-Allow-Headers', codecAllowedHeaders.join(', '));
    ctx.set('Access-Control-Max-Age', '600');
    ctx.status = 204;
    return;
  }
  return next();
}
