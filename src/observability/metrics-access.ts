import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';

/** What decides who may scrape: the operator's token, and whether the process runs for development. */
export interface MetricsAccessConfig {
  METRICS_TOKEN?: string | undefined;
  isDev: boolean;
  TRUST_PROXY_HOPS: number;
}

/**
 * Whether a scrape may read the metrics. With METRICS_TOKEN set, the scraper sends
 * `Authorization: Bearer <token>` (compared in constant time, whatever its length). Without it, only
 * a development process answers, and only to a loopback peer with no proxy in front (TRUST_PROXY_HOPS
 * 0: a proxy on the same host would make every client look local); a production process refuses every
 * scrape, so metrics are never open by default.
 */
export function metricsAccess(
  config: MetricsAccessConfig,
  request: { authorization?: string | undefined; remoteAddress?: string | undefined },
): 'allowed' | 'unauthorized' | 'disabled' {
  const token = config.METRICS_TOKEN;
  if (token) return sameSecret(bearer(request.authorization), token) ? 'allowed' : 'unauthorized';
  if (config.isDev && config.TRUST_PROXY_HOPS === 0 && isLoopback(request.remoteAddress)) return 'allowed';
  return 'disabled';
}

function bearer(header: string | undefined): string {
  const match = /^Bearer ([^\s]+)$/i.exec(header ?? '');
  return match ? match[1]! : '';
}

/** Equal secrets, compared on their digests: the time taken says nothing about the token, its length included. */
function sameSecret(given: string, expected: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();
  return timingSafeEqual(digest(given), digest(expected)) && given.length > 0;
}

export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const plain = address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
  if (isIP(plain) === 4) return plain.startsWith('127.');
  return plain === '::1';
}

/** The refusal's problem+json body and status, shared by the API route and the worker's listener. */
export function metricsRefusal(reason: 'unauthorized' | 'disabled'): { status: number; slug: string; title: string; detail: string } {
  return reason === 'unauthorized'
    ? { status: 401, slug: 'unauthorized', title: 'Authentication required', detail: 'Send the metrics token as a Bearer token.' }
    : { status: 404, slug: 'metrics-disabled', title: 'Metrics are not enabled', detail: 'Set METRICS_TOKEN to scrape metrics here.' };
}
