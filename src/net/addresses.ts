/**
 * Which IP addresses the outbound client may connect to (see ./outbound.ts). Everything that is not
 * a public unicast address is refused unless the operator's allow-list (CIDRs) names it; IPv4-mapped
 * IPv6 forms are judged as the IPv4 address, and IPv6 forms that embed an IPv4 address (IPv4-compatible,
 * NAT64 64:ff9b::/96, 6to4 2002::/16, Teredo 2001::/32) are refused when the embedded address is.
 */
import { BlockList, isIP } from 'node:net';

type Family = 'ipv4' | 'ipv6';

/** Each category's ranges, in the order they are reported. */
const refusedRanges: [string, string[]][] = [
  ['an unspecified', ['0.0.0.0/8', '::/128']],
  ['a loopback', ['127.0.0.0/8', '::1/128']],
  ['a private', ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7', 'fec0::/10', '64:ff9b:1::/48']],
  ['a link-local (cloud metadata lives here)', ['169.254.0.0/16', 'fe80::/10']],
  ['a carrier-grade NAT', ['100.64.0.0/10']],
  ['a multicast', ['224.0.0.0/4', 'ff00::/8']],
  [
    'a reserved',
    ['240.0.0.0/4', '192.0.0.0/24', '192.0.2.0/24', '198.18.0.0/15', '198.51.100.0/24', '203.0.113.0/24', '100::/64', '2001:db8::/32'],
  ],
];

function familyOf(address: string): Family | undefined {
  const version = isIP(address);
  return version === 4 ? 'ipv4' : version === 6 ? 'ipv6' : undefined;
}

function parseCidr(entry: string): { address: string; prefix: number; family: Family } {
  const [address = '', prefixText, extra] = entry.split('/');
  const family = familyOf(address);
  const max = family === 'ipv4' ? 32 : 128;
  const prefix = prefixText === undefined ? max : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : NaN;
  if (!family || extra !== undefined || !(prefix >= 0 && prefix <= max)) {
    throw new Error(`invalid outbound allow entry "${entry}": expected an IP address or a CIDR such as 127.0.0.0/8 or ::1/128`);
  }
  return { address, prefix, family };
}

/** Splits a comma-separated list of CIDRs (or bare addresses) and validates each; throws naming the first bad entry. */
export function parseAllowList(value: string): string[] {
  return value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry) => {
      const { address, prefix } = parseCidr(entry);
      return `${address}/${prefix}`;
    });
}

function blockList(cidrs: string[]): BlockList {
  const list = new BlockList();
  for (const cidr of cidrs) {
    const { address, prefix, family } = parseCidr(cidr);
    list.addSubnet(address, prefix, family);
  }
  return list;
}

/** The eight 16-bit groups of an IPv6 address (already validated by isIP). */
function ipv6Groups(address: string): number[] {
  let text = address;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)));
  const front = parse(head);
  const back = tail === undefined ? [] : parse(tail);
  return [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
}

const v4 = (high: number, low: number) => `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;

/** The IPv4 address an IPv6 address carries, for the transition forms that route to it. */
function embeddedIPv4(address: string): string | undefined {
  const g = ipv6Groups(address) as [number, number, number, number, number, number, number, number];
  if (g.slice(0, 5).every((x) => x === 0) && (g[5] === 0 || g[5] === 0xffff)) return v4(g[6], g[7]);
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return v4(g[6], g[7]);
  if (g[0] === 0x2002) return v4(g[1], g[2]);
  if (g[0] === 0x2001 && g[1] === 0) return v4(g[6] ^ 0xffff, g[7] ^ 0xffff);
  return undefined;
}

/**
 * Returns a checker: for an IP address it answers why the address is refused (e.g. "a loopback address"),
 * or undefined when it may be contacted. `allow` entries (CIDRs) win over every refused range.
 */
export function addressChecker(allow: string[]): (address: string) => string | undefined {
  const allowed = blockList(allow);
  const refused = refusedRanges.map(([what, cidrs]) => [what, blockList(cidrs)] as const);
  const category = (address: string, family: Family) => refused.find(([, list]) => list.check(address, family))?.[0];
  return (input) => {
    const address = input.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
    const family = familyOf(address);
    if (!family) return 'not an IP address';
    if (allowed.check(address, family)) return undefined;
    const direct = category(address, family);
    if (direct) return `${direct} address`;
    const inner = family === 'ipv6' ? embeddedIPv4(address) : undefined;
    const innerCategory = inner && !allowed.check(inner, 'ipv4') ? category(inner, 'ipv4') : undefined;
    return innerCategory ? `an IPv6 address embedding ${inner}, ${innerCategory} address` : undefined;
  };
}
