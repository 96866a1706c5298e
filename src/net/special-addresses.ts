/**
 * The address ranges the outbound guard (./addresses.ts) judges, with where each comes from.
 *
 * Source of truth: the IANA IPv4 and IPv6 Special-Purpose Address Registries (RFC 6890, BCP 153),
 * transcribed entry by entry as they stood at the IPv6 registry's update of 2025-10-09 (the newest
 * entries: 100:0:0:1::/64, RFC 9780; 2001:1::3/128, RFC 9665; 3fff::/20, RFC 9637; 5f00::/16, RFC
 * 9602). `reachable` is the registry's "Globally Reachable" column ('N/A' where the registry leaves it
 * blank or marks it N/A). When the registries change (check them at iana.org/assignments), add the
 * entry here and to the test's own copy (test/net/outbound-addresses.unit.test.ts).
 *
 * The rule: every entry whose Globally Reachable is False is refused. The others are decided one by
 * one, and the decision is written next to them:
 * - `embedded`: an IPv6 form that carries an IPv4 address (mapped, NAT64, 6to4, Teredo, and the
 *   non-registry compatible and SIIT forms) is judged by the IPv4 address it carries;
 * - `refuse` on a True or N/A entry: anycast service addresses (answered by the nearest instance,
 *   which may be inside the platform's own network: PCP is answered by the local gateway, AS112 and
 *   TURN nodes are run inside networks), overlay identifiers that are not locators (ORCHID, DETs),
 *   and deprecated blocks. None of them is where a server a person names would live.
 *
 * Entries marked `registry: false` come from elsewhere (IANA's IPv4 multicast and IPv6 address space
 * registries, deprecated RFCs); IPv6 outside 2000::/3, the only block IANA allocates as global
 * unicast, is refused by the guard itself.
 */

export type Reachable = 'True' | 'False' | 'N/A';

/** How the guard words a refusal: "a loopback address (Loopback, RFC 1122)". */
export type Kind =
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'link-local (cloud metadata lives here)'
  | 'carrier-grade NAT'
  | 'multicast'
  | 'limited broadcast'
  | 'documentation'
  | 'benchmarking'
  | 'anycast service'
  | 'special-purpose'
  | 'reserved';

export interface SpecialRange {
  cidr: string;
  /** The registry's name for the block. */
  name: string;
  rfc: string;
  reachable: Reachable;
  /** refuse: never contacted (unless MCP_OUTBOUND_ALLOW names it); embedded: judged by the IPv4 address inside. */
  decision: 'refuse' | 'embedded';
  kind: Kind;
  /** False: not an entry of the special-purpose registries (see the header). */
  registry?: false;
}

const anycast = 'anycast service';

export const specialRanges: SpecialRange[] = [
  // IANA IPv4 Special-Purpose Address Registry
  { cidr: '0.0.0.0/8', name: '"This network"', rfc: 'RFC 791 §3.2', reachable: 'False', decision: 'refuse', kind: 'unspecified' },
  {
    cidr: '0.0.0.0/32',
    name: '"This host on this network"',
    rfc: 'RFC 1122 §3.2.1.3',
    reachable: 'False',
    decision: 'refuse',
    kind: 'unspecified',
  },
  { cidr: '10.0.0.0/8', name: 'Private-Use', rfc: 'RFC 1918', reachable: 'False', decision: 'refuse', kind: 'private' },
  {
    cidr: '100.64.0.0/10',
    name: 'Shared Address Space',
    rfc: 'RFC 6598',
    reachable: 'False',
    decision: 'refuse',
    kind: 'carrier-grade NAT',
  },
  { cidr: '127.0.0.0/8', name: 'Loopback', rfc: 'RFC 1122 §3.2.1.3', reachable: 'False', decision: 'refuse', kind: 'loopback' },
  {
    cidr: '169.254.0.0/16',
    name: 'Link Local',
    rfc: 'RFC 3927',
    reachable: 'False',
    decision: 'refuse',
    kind: 'link-local (cloud metadata lives here)',
  },
  { cidr: '172.16.0.0/12', name: 'Private-Use', rfc: 'RFC 1918', reachable: 'False', decision: 'refuse', kind: 'private' },
  {
    cidr: '192.0.0.0/24',
    name: 'IETF Protocol Assignments',
    rfc: 'RFC 6890 §2.1',
    reachable: 'False',
    decision: 'refuse',
    kind: 'reserved',
  },
  {
    cidr: '192.0.0.0/29',
    name: 'IPv4 Service Continuity Prefix',
    rfc: 'RFC 7335',
    reachable: 'False',
    decision: 'refuse',
    kind: 'special-purpose',
  },
  { cidr: '192.0.0.8/32', name: 'IPv4 dummy address', rfc: 'RFC 7600', reachable: 'False', decision: 'refuse', kind: 'special-purpose' },
  { cidr: '192.0.0.9/32', name: 'Port Control Protocol Anycast', rfc: 'RFC 7723', reachable: 'True', decision: 'refuse', kind: anycast },
  {
    cidr: '192.0.0.10/32',
    name: 'Traversal Using Relays around NAT Anycast',
    rfc: 'RFC 8155',
    reachable: 'True',
    decision: 'refuse',
    kind: anycast,
  },
  {
    cidr: '192.0.0.170/32',
    name: 'NAT64/DNS64 Discovery',
    rfc: 'RFC 8880, RFC 7050 §2.2',
    reachable: 'False',
    decision: 'refuse',
    kind: 'special-purpose',
  },
  {
    cidr: '192.0.0.171/32',
    name: 'NAT64/DNS64 Discovery',
    rfc: 'RFC 8880, RFC 7050 §2.2',
    reachable: 'False',
    decision: 'refuse',
    kind: 'special-purpose',
  },
  {
    cidr: '192.0.2.0/24',
    name: 'Documentation (TEST-NET-1)',
    rfc: 'RFC 5737',
    reachable: 'False',
    decision: 'refuse',
    kind: 'documentation',
  },
  { cidr: '192.31.196.0/24', name: 'AS112-v4', rfc: 'RFC 7535', reachable: 'True', decision: 'refuse', kind: anycast },
  { cidr: '192.52.193.0/24', name: 'AMT', rfc: 'RFC 7450', reachable: 'True', decision: 'refuse', kind: anycast },
  { cidr: '192.88.99.0/24', name: 'Deprecated (6to4 Relay Anycast)', rfc: 'RFC 7526', reachable: 'N/A', decision: 'refuse', kind: anycast },
  { cidr: '192.88.99.2/32', name: '6a44-relay anycast address', rfc: 'RFC 6751', reachable: 'True', decision: 'refuse', kind: anycast },
  { cidr: '192.168.0.0/16', name: 'Private-Use', rfc: 'RFC 1918', reachable: 'False', decision: 'refuse', kind: 'private' },
  {
    cidr: '192.175.48.0/24',
    name: 'Direct Delegation AS112 Service',
    rfc: 'RFC 7534',
    reachable: 'True',
    decision: 'refuse',
    kind: anycast,
  },
  { cidr: '198.18.0.0/15', name: 'Benchmarking', rfc: 'RFC 2544', reachable: 'False', decision: 'refuse', kind: 'benchmarking' },
  {
    cidr: '198.51.100.0/24',
    name: 'Documentation (TEST-NET-2)',
    rfc: 'RFC 5737',
    reachable: 'False',
    decision: 'refuse',
    kind: 'documentation',
  },
  {
    cidr: '203.0.113.0/24',
    name: 'Documentation (TEST-NET-3)',
    rfc: 'RFC 5737',
    reachable: 'False',
    decision: 'refuse',
    kind: 'documentation',
  },
  { cidr: '240.0.0.0/4', name: 'Reserved', rfc: 'RFC 1112 §4', reachable: 'False', decision: 'refuse', kind: 'reserved' },
  {
    cidr: '255.255.255.255/32',
    name: 'Limited Broadcast',
    rfc: 'RFC 8190, RFC 919 §7',
    reachable: 'False',
    decision: 'refuse',
    kind: 'limited broadcast',
  },
  // Not unicast (IANA IPv4 Multicast Address Space Registry)
  { cidr: '224.0.0.0/4', name: 'Multicast', rfc: 'RFC 5771', reachable: 'False', decision: 'refuse', kind: 'multicast', registry: false },

  // IANA IPv6 Special-Purpose Address Registry
  { cidr: '::1/128', name: 'Loopback Address', rfc: 'RFC 4291', reachable: 'False', decision: 'refuse', kind: 'loopback' },
  { cidr: '::/128', name: 'Unspecified Address', rfc: 'RFC 4291', reachable: 'False', decision: 'refuse', kind: 'unspecified' },
  // The socket connects to the IPv4 address over IPv4: judged as that address.
  {
    cidr: '::ffff:0:0/96',
    name: 'IPv4-mapped Address',
    rfc: 'RFC 4291',
    reachable: 'False',
    decision: 'embedded',
    kind: 'special-purpose',
  },
  { cidr: '64:ff9b::/96', name: 'IPv4-IPv6 Translat.', rfc: 'RFC 6052', reachable: 'True', decision: 'embedded', kind: 'special-purpose' },
  { cidr: '64:ff9b:1::/48', name: 'IPv4-IPv6 Translat.', rfc: 'RFC 8215', reachable: 'False', decision: 'refuse', kind: 'private' },
  {
    cidr: '100::/64',
    name: 'Discard-Only Address Block',
    rfc: 'RFC 6666',
    reachable: 'False',
    decision: 'refuse',
    kind: 'special-purpose',
  },
  { cidr: '100:0:0:1::/64', name: 'Dummy IPv6 Prefix', rfc: 'RFC 9780', reachable: 'False', decision: 'refuse', kind: 'special-purpose' },
  { cidr: '2001::/23', name: 'IETF Protocol Assignments', rfc: 'RFC 2928', reachable: 'False', decision: 'refuse', kind: 'reserved' },
  // Teredo carries the server's IPv4 address and the client's (inverted): both are judged.
  { cidr: '2001::/32', name: 'TEREDO', rfc: 'RFC 4380, RFC 8190', reachable: 'N/A', decision: 'embedded', kind: 'special-purpose' },
  { cidr: '2001:1::1/128', name: 'Port Control Protocol Anycast', rfc: 'RFC 7723', reachable: 'True', decision: 'refuse', kind: anycast },
  {
    cidr: '2001:1::2/128',
    name: 'Traversal Using Relays around NAT Anycast',
    rfc: 'RFC 8155',
    reachable: 'True',
    decision: 'refuse',
    kind: anycast,
  },
  {
    cidr: '2001:1::3/128',
    name: 'DNS-SD Service Registration Protocol Anycast',
    rfc: 'RFC 9665',
    reachable: 'True',
    decision: 'refuse',
    kind: anycast,
  },
  {
    cidr: '2001:2::/48',
    name: 'Benchmarking',
    rfc: 'RFC 5180, RFC Errata 1752',
    reachable: 'False',
    decision: 'refuse',
    kind: 'benchmarking',
  },
  { cidr: '2001:3::/32', name: 'AMT', rfc: 'RFC 7450', reachable: 'True', decision: 'refuse', kind: anycast },
  { cidr: '2001:4:112::/48', name: 'AS112-v6', rfc: 'RFC 7535', reachable: 'True', decision: 'refuse', kind: anycast },
  {
    cidr: '2001:10::/28',
    name: 'Deprecated (previously ORCHID)',
    rfc: 'RFC 4843',
    reachable: 'N/A',
    decision: 'refuse',
    kind: 'special-purpose',
  },
  { cidr: '2001:20::/28', name: 'ORCHIDv2', rfc: 'RFC 7343', reachable: 'True', decision: 'refuse', kind: 'special-purpose' },
  {
    cidr: '2001:30::/28',
    name: 'Drone Remote ID Protocol Entity Tags (DETs) Prefix',
    rfc: 'RFC 9374',
    reachable: 'True',
    decision: 'refuse',
    kind: 'special-purpose',
  },
  { cidr: '2001:db8::/32', name: 'Documentation', rfc: 'RFC 3849', reachable: 'False', decision: 'refuse', kind: 'documentation' },
  { cidr: '2002::/16', name: '6to4', rfc: 'RFC 3056', reachable: 'N/A', decision: 'embedded', kind: 'special-purpose' },
  {
    cidr: '2620:4f:8000::/48',
    name: 'Direct Delegation AS112 Service',
    rfc: 'RFC 7534',
    reachable: 'True',
    decision: 'refuse',
    kind: anycast,
  },
  { cidr: '3fff::/20', name: 'Documentation', rfc: 'RFC 9637', reachable: 'False', decision: 'refuse', kind: 'documentation' },
  {
    cidr: '5f00::/16',
    name: 'Segment Routing (SRv6) SIDs',
    rfc: 'RFC 9602',
    reachable: 'False',
    decision: 'refuse',
    kind: 'special-purpose',
  },
  { cidr: 'fc00::/7', name: 'Unique-Local', rfc: 'RFC 4193, RFC 8190', reachable: 'False', decision: 'refuse', kind: 'private' },
  {
    cidr: 'fe80::/10',
    name: 'Link-Local Unicast',
    rfc: 'RFC 4291',
    reachable: 'False',
    decision: 'refuse',
    kind: 'link-local (cloud metadata lives here)',
  },
  // Not in the IPv6 special-purpose registry:
  // deprecated forms that carry an IPv4 address in the low 32 bits (IPv4-compatible; SIIT's IPv4-translated)
  {
    cidr: '::/96',
    name: 'IPv4-compatible (deprecated)',
    rfc: 'RFC 4291 §2.5.5.1',
    reachable: 'N/A',
    decision: 'embedded',
    kind: 'special-purpose',
    registry: false,
  },
  {
    cidr: '::ffff:0:0:0/96',
    name: 'IPv4-translated (SIIT)',
    rfc: 'RFC 2765 §2.1',
    reachable: 'N/A',
    decision: 'embedded',
    kind: 'special-purpose',
    registry: false,
  },
  {
    cidr: 'fec0::/10',
    name: 'Site-Local (deprecated)',
    rfc: 'RFC 3879',
    reachable: 'False',
    decision: 'refuse',
    kind: 'private',
    registry: false,
  },
  { cidr: 'ff00::/8', name: 'Multicast', rfc: 'RFC 4291', reachable: 'False', decision: 'refuse', kind: 'multicast', registry: false },
];

/** IANA IPv6 Address Space Registry: the only block allocated as Global Unicast. */
export const ipv6GlobalUnicast = '2000::/3';
