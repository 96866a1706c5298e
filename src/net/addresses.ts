/**
 * Which IP addresses the outbound client may connect to (see ./outbound.ts). The IANA special-purpose
 * address registries are the source of truth (./special-addresses.ts: every entry, its RFC, and what
 * is decided for it): an address is judged by the most specific entry that holds it, and refused
 * unless that entry is an IPv6 form carrying an IPv4 address, which is judged by the IPv4 address it
 * carries. IPv6 outside 2000::/3 (not global unicast) is refused too. The operator's allow-list
 * (CIDRs) wins over every refusal, the embedded address included.
 */
import { BlockList, isIP } from 'node:net';
import { ipv6GlobalUnicast, specialRanges, type SpecialRange } from './special-addresses.js';

type Family = 'ipv4' | 'ipv6';

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

/** Whether an IP address is in one of an allow list's ranges (CIDRs, as parseAllowList gives them). */
export function allowListMatcher(cidrs: string[]): (address: string) => boolean {
  const list = blockList(cidrs);
  return (address) => {
    const family = familyOf(address);
    return family !== undefined && list.check(address, family);
  };
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

/** The address as a number (32 bits for IPv4, 128 for IPv6). */
function toNumber(address: string, family: Family): bigint {
  const parts = family === 'ipv4' ? address.split('.').map(Number) : ipv6Groups(address);
  const width = family === 'ipv4' ? 8n : 16n;
  return parts.reduce((n, part) => (n << width) | BigInt(part), 0n);
}

interface Range {
  family: Family;
  base: bigint;
  mask: bigint;
  prefix: number;
}

function range(cidr: string): Range {
  const { address, prefix, family } = parseCidr(cidr);
  const bits = family === 'ipv4' ? 32 : 128;
  const mask = ((1n << BigInt(bits)) - 1n) ^ ((1n << BigInt(bits - prefix)) - 1n);
  return { family, base: toNumber(address, family) & mask, mask, prefix };
}

const contains = (r: Range, family: Family, n: bigint) => r.family === family && (n & r.mask) === r.base;

/** Most specific first, so an address is judged by the narrowest entry that holds it. */
const entries = specialRanges.map((entry) => ({ entry, range: range(entry.cidr) })).sort((a, b) => b.range.prefix - a.range.prefix);
const globalUnicast = range(ipv6GlobalUnicast);

const v4 = (high: number, low: number) => `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;

/** The IPv4 addresses an IPv6 form carries: the low 32 bits, 6to4's bits 16-47, Teredo's server and (inverted) client. */
function embeddedIPv4(address: string, entry: SpecialRange): string[] {
  const g = ipv6Groups(address) as [number, number, number, number, number, number, number, number];
  if (entry.cidr === '2002::/16') return [v4(g[1], g[2])];
  if (entry.cidr === '2001::/32') return [v4(g[2], g[3]), v4(g[6] ^ 0xffff, g[7] ^ 0xffff)];
  return [v4(g[6], g[7])];
}

const described = (entry: SpecialRange) =>
  `${/^[aeiou]/.test(entry.kind) ? 'an' : 'a'} ${entry.kind} address (${entry.name}, ${entry.rfc})`;

/** The registry's entry for an address, or undefined when it is in none. */
export function specialRangeOf(address: string): SpecialRange | undefined {
  const family = familyOf(address);
  if (!family) return undefined;
  const n = toNumber(address, family);
  return entries.find(({ range: r }) => contains(r, family, n))?.entry;
}

/**
 * Returns a checker: for an IP address it answers why the address is refused (e.g. "a loopback
 * address (Loopback, RFC 1122)"), or undefined when it may be contacted. `allow` entries (CIDRs) win
 * over every refused range.
 */
export function addressChecker(allow: string[]): (address: string) => string | undefined {
  const allowed = blockList(allow);
  const judge = (address: string, family: Family): string | undefined => {
    if (allowed.check(address, family)) return undefined;
    const entry = specialRangeOf(address);
    if (entry?.decision === 'embedded') {
      for (const inner of embeddedIPv4(address, entry)) {
        const why = judge(inner, 'ipv4');
        if (why) return `an IPv6 address embedding ${inner}, ${why}`;
      }
      return undefined;
    }
    if (entry) return described(entry);
    if (family === 'ipv6' && !contains(globalUnicast, family, toNumber(address, family))) {
      return `a reserved address (outside ${ipv6GlobalUnicast}, the only global unicast block of the IANA IPv6 address space)`;
    }
    return undefined;
  };
  return (input) => {
    const address = input.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
    const family = familyOf(address);
    return family ? judge(address, family) : 'not an IP address';
  };
}
