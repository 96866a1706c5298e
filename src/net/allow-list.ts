/**
 * The outbound guard's allow-list for a deployment (issue #37): the CIDRs of MCP_OUTBOUND_ALLOW, and
 * loopback when MCP_OUTBOUND_LOOPBACK says so (unset: in development, when the API listens on loopback only). Loopback alone: private
 * ranges, link-local and cloud metadata (169.254.169.254) stay refused unless MCP_OUTBOUND_ALLOW
 * lists them. OAuth metadata documents have their own list (OAUTH_METADATA_DOCUMENT_ALLOW) and never
 * take this one.
 */
import type { Config } from '../kernel/config/env.js';
import { parseAllowList } from './addresses.js';

/** 127.0.0.0/8 and ::1: this machine. IPv6 forms carrying 127.x (e.g. ::ffff:127.0.0.1) are judged by it. */
export const loopbackRanges: readonly string[] = ['127.0.0.0/8', '::1/128'];

export function outboundAllowList(config: Pick<Config, 'MCP_OUTBOUND_ALLOW' | 'outboundLoopback'>): string[] {
  return [...parseAllowList(config.MCP_OUTBOUND_ALLOW), ...(config.outboundLoopback ? loopbackRanges : [])];
}

/** What `npm start` and the API say about it at start. */
export function outboundLine(
  config: Pick<Config, 'MCP_OUTBOUND_ALLOW' | 'MCP_OUTBOUND_LOOPBACK' | 'outboundLoopback' | 'isDev' | 'HOST'>,
): string {
  const listed = parseAllowList(config.MCP_OUTBOUND_ALLOW);
  const also = listed.length > 0 ? `; also ${listed.join(', ')} (MCP_OUTBOUND_ALLOW)` : '';
  if (!config.outboundLoopback) {
    const why = !config.isDev
      ? 'production'
      : config.MCP_OUTBOUND_LOOPBACK === false
        ? 'MCP_OUTBOUND_LOOPBACK=false'
        : `development, but HOST=${config.HOST} answers other machines; MCP_OUTBOUND_LOOPBACK=true allows it`;
    return `loopback refused (${why})${also}`;
  }
  return config.isDev
    ? `loopback allowed (development); production refuses it unless MCP_OUTBOUND_ALLOW lists it${also}`
    : `loopback allowed (MCP_OUTBOUND_LOOPBACK=true)${also}`;
}
