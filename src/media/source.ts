// A pulled stream's source, checked the way the outbound HTTP client checks its targets (src/net/):
// every address its host resolves to must be one the platform may contact (no loopback, private,
// link-local… unless the operator allows it), and ffmpeg is handed the checked address itself, so
// that no second lookup (DNS rebinding) can send it elsewhere.
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { addressChecker, parseAllowList } from '../net/addresses.js';

export class SourceRefused extends Error {}

const lookupWithinMs = 5000;

/** The URL ffmpeg plays: `url` on its checked address, the key (when given) as the stream name. */
export async function checkedSource(url: string, key: string | null, allow: string): Promise<string> {
  const parsed = new URL(url);
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    const found = await Promise.race([
      lookup(host, { all: true, verbatim: true }),
      new Promise<never>((_, reject) => setTimeout(() => reject(new SourceRefused(`${host} did not resolve in time`)), lookupWithinMs)),
    ]).catch((err: Error) => {
      throw err instanceof SourceRefused
        ? err
        : new SourceRefused(`${host} does not resolve (${(err as { code?: string }).code ?? err.message})`);
    });
    addresses = found.map((a) => a.address);
  }
  if (addresses.length === 0) throw new SourceRefused(`${host} has no address`);
  const check = addressChecker(parseAllowList(allow));
  for (const address of addresses) {
    const why = check(address);
    if (why) throw new SourceRefused(`${host} is ${address}, ${why}: the platform does not pull from it (STREAM_PULL_ALLOW)`);
  }
  const address = addresses[0]!;
  const literal = address.includes(':') ? `[${address}]` : address;
  const port = parsed.port || (parsed.protocol === 'rtmps:' ? '443' : '1935');
  const path = parsed.pathname.replace(/\/+$/, '');
  return `${parsed.protocol}//${literal}:${port}${path}${key ? `/${key}` : ''}`;
}
