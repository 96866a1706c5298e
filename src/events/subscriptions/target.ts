import type { Outbound } from '../../net/outbound.js';
import { problems } from '../../kernel/errors/problem.js';

/** How long the creation waits for the webhook host name to resolve. */
const checkDeadlineMs = 5_000;

const refuse = (reason: string) => problems.validation(`The webhook URL is refused: ${reason}.`, [{ name: 'url', reason }]);

/** Plain http only to this machine (a receiver beside the platform, or a test's): nothing unencrypted leaves it. */
const loopbackHost = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/**
 * A webhook target: https (or http to a loopback host), no credentials in it, and an address the
 * SSRF-guarded outbound client would contact now (a private address only when MCP_OUTBOUND_ALLOW
 * lets it through; loopback also under MCP_OUTBOUND_LOOPBACK, on by default in development). Every
 * delivery goes through the same guard again.
 */
export async function checkWebhookUrl(outbound: Pick<Outbound, 'check'>, raw: string): Promise<string> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refuse('must be an absolute URL');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopbackHost.test(url.hostname))) {
    throw refuse('must be https (plain http only to a loopback host)');
  }
  if (url.username || url.password) throw refuse('must not hold credentials');
  url.hash = '';
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      outbound.check(url),
      new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`${url.hostname} did not resolve in time`)), checkDeadlineMs))),
    ]);
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'outbound_refused') throw refuse((err as Error).message);
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') throw refuse(`${url.hostname} does not resolve`);
    throw refuse((err as Error).message);
  } finally {
    clearTimeout(timer);
  }
  return url.href;
}
