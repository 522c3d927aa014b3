import { isIPv4, isIPv6 } from 'node:net';

/**
 * Classifies IP addresses into the groups the URL policy allows or refuses. Own CIDR
 * arithmetic rather than net.BlockList, because the policy must say which range matched and
 * must look through IPv6 forms that carry an IPv4 address (mapped, compatible, NAT64, 6to4).
 */

export type AddressKind = 'public' | 'loopback' | 'linkLocal' | 'private';

export interface AddressClass {
  readonly kind: AddressKind;
  /** The matching range and its name, e.g. `169.254.0.0/16 link-local`; absent for public addresses. */
  readonly range?: string;
  /** The IPv4 address an IPv6 address carries, when that is what was classified. */
  readonly embeddedIpv4?: string;
}

interface Range {
  readonly cidr: string;
  readonly bytes: Uint8Array;
  readonly prefix: number;
  readonly kind: Exclude<AddressKind, 'public'>;
  readonly label: string;
}

const IPV4_RANGES: readonly Range[] = [
  v4('0.0.0.0/8', 'private', '"this network"'),
  v4('10.0.0.0/8', 'private', 'private (RFC 1918)'),
  v4('100.64.0.0/10', 'private', 'carrier-grade NAT'),
  v4('127.0.0.0/8', 'loopback', 'loopback'),
  v4('169.254.0.0/16', 'linkLocal', 'link-local (cloud metadata lives here)'),
  v4('172.16.0.0/12', 'private', 'private (RFC 1918)'),
  v4('192.0.0.0/24', 'private', 'IETF protocol assignments'),
  v4('192.0.2.0/24', 'private', 'documentation'),
  v4('192.88.99.0/24', 'private', '6to4 relay anycast'),
  v4('192.168.0.0/16', 'private', 'private (RFC 1918)'),
  v4('198.18.0.0/15', 'private', 'benchmarking'),
  v4('198.51.100.0/24', 'private', 'documentation'),
  v4('203.0.113.0/24', 'private', 'documentation'),
  v4('224.0.0.0/4', 'private', 'multicast'),
  v4('240.0.0.0/4', 'private', 'reserved and broadcast'),
];

const IPV6_RANGES: readonly Range[] = [
  v6('::/128', 'private', 'unspecified'),
  v6('::1/128', 'loopback', 'loopback'),
  v6('64:ff9b:1::/48', 'private', 'local-use NAT64'),
  v6('100::/64', 'private', 'discard-only'),
  v6('2001:db8::/32', 'private', 'documentation'),
  v6('fc00::/7', 'private', 'unique local'),
  v6('fe80::/10', 'linkLocal', 'link-local'),
  v6('fec0::/10', 'private', 'site-local (deprecated)'),
  v6('ff00::/8', 'private', 'multicast'),
];

/** IPv6 prefixes whose addresses reach an IPv4 host; `at` is the byte offset of that IPv4 address. */
const IPV4_CARRIERS: readonly { readonly range: Range; readonly at: number }[] = [
  { range: v6('::ffff:0:0/96', 'private', 'IPv4-mapped'), at: 12 },
  { range: v6('::/96', 'private', 'IPv4-compatible'), at: 12 },
  { range: v6('64:ff9b::/96', 'private', 'NAT64'), at: 12 },
  { range: v6('2002::/16', 'private', '6to4'), at: 2 },
];

/** The class of an IP address (IPv4 or IPv6, an IPv6 zone suffix is ignored), or undefined when it is not one. */
export function classifyAddress(address: string): AddressClass | undefined {
  const v4bytes = ipv4Bytes(address);
  if (v4bytes !== undefined) return classifyIn(v4bytes, IPV4_RANGES);
  const v6bytes = ipv6Bytes(address);
  if (v6bytes === undefined) return undefined;
  // :: and ::1 sit inside ::/96 but are IPv6 addresses in their own right.
  const exact = IPV6_RANGES.slice(0, 2).find((range) => matches(v6bytes, range));
  if (exact !== undefined) return { kind: exact.kind, range: describeRange(exact) };
  for (const carrier of IPV4_CARRIERS) {
    if (!matches(v6bytes, carrier.range)) continue;
    const inner = v6bytes.slice(carrier.at, carrier.at + 4);
    const embeddedIpv4 = inner.join('.');
    const verdict = classifyIn(inner, IPV4_RANGES);
    return {
      ...verdict,
      embeddedIpv4,
      ...(verdict.range === undefined ? {} : { range: `${verdict.range} via ${carrier.range.label} ${embeddedIpv4}` }),
    };
  }
  return classifyIn(v6bytes, IPV6_RANGES);
}

function classifyIn(bytes: Uint8Array, ranges: readonly Range[]): AddressClass {
  const range = ranges.find((candidate) => matches(bytes, candidate));
  return range === undefined ? { kind: 'public' } : { kind: range.kind, range: describeRange(range) };
}

function describeRange(range: Range): string {
  return `${range.cidr} ${range.label}`;
}

function matches(bytes: Uint8Array, range: Range): boolean {
  if (bytes.length !== range.bytes.length) return false;
  const whole = Math.floor(range.prefix / 8);
  for (let index = 0; index < whole; index++) if (bytes[index] !== range.bytes[index]) return false;
  const rest = range.prefix % 8;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return ((bytes[whole] ?? 0) & mask) === ((range.bytes[whole] ?? 0) & mask);
}

export function ipv4Bytes(address: string): Uint8Array | undefined {
  if (!isIPv4(address)) return undefined;
  return Uint8Array.from(address.split('.').map(Number));
}

/** The 16 bytes of an IPv6 address, including the `::` and trailing dotted-quad forms. */
export function ipv6Bytes(address: string): Uint8Array | undefined {
  const text = address.replace(/%.*$/, '');
  if (!isIPv6(text)) return undefined;
  let hex = text;
  const tail = text.slice(text.lastIndexOf(':') + 1);
  const tailBytes = ipv4Bytes(tail);
  if (tailBytes !== undefined) {
    const high = (((tailBytes[0] ?? 0) << 8) | (tailBytes[1] ?? 0)).toString(16);
    const low = (((tailBytes[2] ?? 0) << 8) | (tailBytes[3] ?? 0)).toString(16);
    hex = `${text.slice(0, text.length - tail.length)}${high}:${low}`;
  }
  const [left = '', right] = hex.split('::');
  const head = left === '' ? [] : left.split(':');
  const back = right === undefined || right === '' ? [] : right.split(':');
  const groups = right === undefined ? head : [...head, ...new Array<string>(8 - head.length - back.length).fill('0'), ...back];
  if (groups.length !== 8) return undefined;
  const bytes = new Uint8Array(16);
  groups.forEach((group, index) => {
    const value = parseInt(group, 16);
    bytes[index * 2] = value >> 8;
    bytes[index * 2 + 1] = value & 0xff;
  });
  return bytes;
}

function v4(cidr: string, kind: Range['kind'], label: string): Range {
  const [address = '', prefix = ''] = cidr.split('/');
  const bytes = ipv4Bytes(address);
  if (bytes === undefined) throw new Error(`bad IPv4 range ${cidr}`);
  return { cidr, bytes, prefix: Number(prefix), kind, label };
}

function v6(cidr: string, kind: Range['kind'], label: string): Range {
  const [address = '', prefix = ''] = cidr.split('/');
  const bytes = ipv6Bytes(address);
  if (bytes === undefined) throw new Error(`bad IPv6 range ${cidr}`);
  return { cidr, bytes, prefix: Number(prefix), kind, label };
}
