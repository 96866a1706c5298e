import { isIP } from 'node:net';
import type { AppContext } from './context.js';

const unmapped = (address: string) => address.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');

/**
 * The client's address. X-Forwarded-For is anyone's to write, so it is believed only as far as the
 * operator says proxies append to it (TRUST_PROXY_HOPS): with n trusted proxies the client is the
 * n-th entry from the right, the one the outermost trusted proxy saw. With 0 (the default) the
 * connecting socket's address is the client.
 */
export function clientIp(ctx: Pick<AppContext, 'get' | 'req'>, trustedHops: number): string {
  const socket = unmapped(ctx.req.socket.remoteAddress ?? 'unknown');
  if (trustedHops === 0) return socket;
  const chain = ctx
    .get('x-forwarded-for')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  const candidate = unmapped(chain[Math.max(0, chain.length - trustedHops)] ?? '');
  return isIP(candidate) ? candidate : socket;
}

/**
 * What a per-IP limit counts by: an IPv4 address, or an IPv6 address's /64 (one subscriber's usual
 * allocation, so rotating through it does not buy more attempts).
 */
export function ipLimitKey(ip: string): string {
  if (isIP(ip) !== 6) return ip;
  const [head = '', tail] = ip.toLowerCase().split('::');
  const front = head ? head.split(':') : [];
  const back = tail === undefined ? [] : tail ? tail.split(':') : [];
  const groups = [...front, ...new Array<string>(Math.max(0, 8 - front.length - back.length)).fill('0'), ...back];
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}
