// Every range of the IANA special-purpose address registries (issue #30) against the outbound
// address check: the first and last address of each is refused (or, for an IPv6 form that carries an
// IPv4 address, judged by that address), and the neighbour just outside each is allowed where it is
// public. The registry below is this test's own copy, written from the registries, not read from the
// code's table: a range the code forgets, or one it refuses too widely, fails here.
import assert from 'node:assert/strict';
import { isIP } from 'node:net';
import { describe, it } from 'node:test';
import { addressChecker, specialRangeOf } from '../../src/net/addresses.js';
import { specialRanges } from '../../src/net/special-addresses.js';

type Outcome = 'refused' | 'embedded';

/** IANA IPv4 and IPv6 Special-Purpose Address Registries (2025-10-09), every entry. */
const registry: [string, Outcome][] = [
  ['0.0.0.0/8', 'refused'],
  ['0.0.0.0/32', 'refused'],
  ['10.0.0.0/8', 'refused'],
  ['100.64.0.0/10', 'refused'],
  ['127.0.0.0/8', 'refused'],
  ['169.254.0.0/16', 'refused'],
  ['172.16.0.0/12', 'refused'],
  ['192.0.0.0/24', 'refused'],
  ['192.0.0.0/29', 'refused'],
  ['192.0.0.8/32', 'refused'],
  ['192.0.0.9/32', 'refused'], // Globally Reachable True: PCP anycast, answered by the local gateway
  ['192.0.0.10/32', 'refused'], // True: TURN anycast
  ['192.0.0.170/32', 'refused'],
  ['192.0.0.171/32', 'refused'],
  ['192.0.2.0/24', 'refused'],
  ['192.31.196.0/24', 'refused'], // True: AS112 anycast
  ['192.52.193.0/24', 'refused'], // True: AMT anycast
  ['192.88.99.0/24', 'refused'], // N/A: deprecated 6to4 relay anycast
  ['192.88.99.2/32', 'refused'], // True: 6a44 relay anycast
  ['192.168.0.0/16', 'refused'],
  ['192.175.48.0/24', 'refused'], // True: AS112 anycast
  ['198.18.0.0/15', 'refused'],
  ['198.51.100.0/24', 'refused'],
  ['203.0.113.0/24', 'refused'],
  ['240.0.0.0/4', 'refused'],
  ['255.255.255.255/32', 'refused'],
  ['::1/128', 'refused'],
  ['::/128', 'refused'],
  ['::ffff:0:0/96', 'embedded'],
  ['64:ff9b::/96', 'embedded'],
  ['64:ff9b:1::/48', 'refused'],
  ['100::/64', 'refused'],
  ['100:0:0:1::/64', 'refused'],
  ['2001::/23', 'refused'],
  ['2001::/32', 'embedded'], // Teredo
  ['2001:1::1/128', 'refused'],
  ['2001:1::2/128', 'refused'],
  ['2001:1::3/128', 'refused'],
  ['2001:2::/48', 'refused'],
  ['2001:3::/32', 'refused'],
  ['2001:4:112::/48', 'refused'],
  ['2001:10::/28', 'refused'],
  ['2001:20::/28', 'refused'],
  ['2001:30::/28', 'refused'],
  ['2001:db8::/32', 'refused'],
  ['2002::/16', 'embedded'],
  ['2620:4f:8000::/48', 'refused'],
  ['3fff::/20', 'refused'],
  ['5f00::/16', 'refused'],
  ['fc00::/7', 'refused'],
  ['fe80::/10', 'refused'],
];

/** Ranges outside the special-purpose registries that are not public unicast either. */
const elsewhere: [string, Outcome][] = [
  ['224.0.0.0/4', 'refused'], // IPv4 multicast
  ['ff00::/8', 'refused'], // IPv6 multicast
  ['fec0::/10', 'refused'], // deprecated site-local
  ['::/96', 'embedded'], // deprecated IPv4-compatible
  ['::ffff:0:0:0/96', 'embedded'], // SIIT IPv4-translated
];

const bitsOf = (cidr: string) => (isIP(cidr.split('/')[0]!) === 4 ? 32 : 128);

function toNumber(address: string): bigint {
  if (isIP(address) === 4) return address.split('.').reduce((n, part) => (n << 8n) | BigInt(part), 0n);
  const [head = '', tail] = address.split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const front = groups(head);
  const back = tail === undefined ? [] : groups(tail);
  const all = [...front, ...new Array<string>(8 - front.length - back.length).fill('0'), ...back];
  return all.reduce((n, group) => (n << 16n) | BigInt(parseInt(group, 16)), 0n);
}

function toAddress(n: bigint, bits: number): string {
  if (bits === 32) return [24n, 16n, 8n, 0n].map((shift) => String((n >> shift) & 255n)).join('.');
  return [112n, 96n, 80n, 64n, 48n, 32n, 16n, 0n].map((shift) => ((n >> shift) & 0xffffn).toString(16)).join(':');
}

function bounds(cidr: string): { first: bigint; last: bigint; bits: number } {
  const [address = '', prefix = ''] = cidr.split('/');
  const bits = bitsOf(cidr);
  const size = 1n << BigInt(bits - Number(prefix));
  const first = toNumber(address) & ~(size - 1n);
  return { first, last: first + size - 1n, bits };
}

const ranges = [...registry, ...elsewhere].map(([cidr, outcome]) => ({ cidr, outcome, ...bounds(cidr) }));
const globalUnicast = bounds('2000::/3');

/** Public unicast: in no range above, and for IPv6 inside 2000::/3 (IANA's only global unicast block). */
function isPublic(n: bigint, bits: number): boolean {
  if (ranges.some((r) => r.bits === bits && n >= r.first && n <= r.last)) return false;
  return bits === 32 || (n >= globalUnicast.first && n <= globalUnicast.last);
}
const inEmbeddingForm = (n: bigint, bits: number) =>
  ranges.some((r) => r.outcome === 'embedded' && r.bits === bits && n >= r.first && n <= r.last && !narrowerRefused(n, bits, r));
const narrowerRefused = (n: bigint, bits: number, outer: { first: bigint; last: bigint }) =>
  ranges.some(
    (r) => r.outcome === 'refused' && r.bits === bits && n >= r.first && n <= r.last && r.last - r.first < outer.last - outer.first,
  );

describe('outbound addresses: the IANA special-purpose registries', () => {
  const check = addressChecker([]);

  it("the guard's table holds every registry entry, and nothing else as a registry entry", () => {
    const table = specialRanges.filter((entry) => entry.registry !== false).map((entry) => entry.cidr);
    assert.deepEqual([...table].sort(), registry.map(([cidr]) => cidr).sort());
    const others = specialRanges.filter((entry) => entry.registry === false).map((entry) => entry.cidr);
    assert.deepEqual([...others].sort(), elsewhere.map(([cidr]) => cidr).sort());
    for (const entry of specialRanges) assert.match(entry.rfc, /^RFC \d+/, `${entry.cidr} names its RFC`);
  });

  for (const { cidr, outcome, first, last, bits } of ranges) {
    it(`${cidr}: first and last refused${outcome === 'embedded' ? ' (by the IPv4 address carried)' : ''}, public neighbours allowed`, () => {
      for (const n of [first, last]) {
        const address = toAddress(n, bits);
        const why = check(address);
        assert.ok(why, `${address} (in ${cidr}) is refused`);
        if (outcome === 'embedded' && !narrowerRefused(n, bits, { first, last })) assert.match(why, /embedding/, address);
      }
      for (const n of [first - 1n, last + 1n]) {
        if (n < 0n || n >= 1n << BigInt(bits)) continue;
        const address = toAddress(n, bits);
        if (inEmbeddingForm(n, bits)) continue; // judged by the IPv4 address it carries, tested below
        if (isPublic(n, bits)) assert.equal(check(address), undefined, `${address}, just outside ${cidr}, is public`);
        else assert.ok(check(address), `${address}, just outside ${cidr}, is not public and is refused`);
      }
    });
  }

  it('refuses the addresses issue #30 found let through', () => {
    for (const address of [
      '::ffff:0:127.0.0.1',
      '::ffff:0:a9fe:a9fe',
      '::ffff:0:10.0.0.1',
      '2001:10::1',
      '2001:20::1',
      '3fff::1',
      '5f00::1',
      '192.88.99.1',
    ]) {
      assert.ok(check(address), `${address} is refused`);
    }
    assert.match(check('::ffff:0:169.254.169.254') ?? '', /embedding 169\.254\.169\.254, a link-local/);
    assert.match(check('3fff:fff:ffff::1') ?? '', /documentation address \(Documentation, RFC 9637\)/);
    assert.match(check('192.88.99.1') ?? '', /Deprecated \(6to4 Relay Anycast\), RFC 7526/);
  });

  it('judges each IPv6 form by the IPv4 address it carries', () => {
    const carriers: [string, string | undefined][] = [
      ['::ffff:8.8.8.8', undefined],
      ['::ffff:10.1.2.3', '10.1.2.3'],
      ['::ffff:0:8.8.8.8', undefined],
      ['::ffff:0:192.168.1.1', '192.168.1.1'],
      ['::8.8.8.8', undefined],
      ['::127.0.0.2', '127.0.0.2'],
      ['64:ff9b::8.8.8.8', undefined],
      ['64:ff9b::100.64.0.1', '100.64.0.1'],
      ['2002:808:808::1', undefined],
      ['2002:c0a8:101::1', '192.168.1.1'],
      // Teredo: server 65.54.227.120, client 8.8.8.8 (inverted) / 192.0.2.45 / server 10.0.0.1
      ['2001:0:4136:e378:8000:63bf:f7f7:f7f7', undefined],
      ['2001:0:4136:e378:8000:63bf:3fff:fdd2', '192.0.2.45'],
      ['2001:0:a00:1:8000:63bf:f7f7:f7f7', '10.0.0.1'],
    ];
    for (const [address, embedded] of carriers) {
      if (embedded) assert.match(check(address) ?? '', new RegExp(`embedding ${embedded.replace(/\./g, '\\.')},`), address);
      else assert.equal(check(address), undefined, address);
    }
  });

  it('refuses IPv6 outside global unicast (2000::/3), and allows public unicast', () => {
    for (const address of ['1::1', '4000::1', '5eff:ffff::1', '8000::1', 'e000::1', 'fbff::1']) {
      assert.match(check(address) ?? '', /outside 2000::\/3/, address);
    }
    for (const address of ['2000::1', '2606:4700::1111', '2a00:1450::1', '3ffe::1', '1.1.1.1', '8.8.8.8', '223.255.255.255', '11.0.0.0']) {
      assert.equal(check(address), undefined, address);
    }
  });

  it('names the registry entry (the most specific one) in its answer', () => {
    assert.equal(specialRangeOf('192.0.0.9')?.name, 'Port Control Protocol Anycast');
    assert.equal(specialRangeOf('192.0.0.11')?.name, 'IETF Protocol Assignments');
    assert.equal(specialRangeOf('2001:1::3')?.rfc, 'RFC 9665');
    assert.equal(specialRangeOf('8.8.8.8'), undefined);
    assert.match(check('192.0.0.9') ?? '', /^an anycast service address \(Port Control Protocol Anycast, RFC 7723\)$/);
  });

  it('keeps MCP_OUTBOUND_ALLOW over every refusal, the carried IPv4 address included', () => {
    assert.equal(addressChecker(['2001:20::/28'])('2001:20::1'), undefined);
    assert.equal(addressChecker(['192.88.99.0/24'])('192.88.99.1'), undefined);
    assert.equal(addressChecker(['127.0.0.0/8'])('::ffff:0:127.0.0.1'), undefined);
    assert.equal(addressChecker(['127.0.0.0/8'])('64:ff9b::7f00:1'), undefined);
    assert.equal(addressChecker(['4000::/3'])('4000::1'), undefined);
    assert.match(addressChecker(['127.0.0.0/8'])('::ffff:0:10.0.0.1') ?? '', /private/);
  });
});
