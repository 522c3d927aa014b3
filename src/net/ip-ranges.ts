import { isIPv4, isIPv6 } from 'node:net';
import { beforeFirst } from '../support/trim.js';

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

/** An address range: the first `prefix` bits of `bytes` (4 bytes for IPv4, 16 for IPv6). */
export interface Cidr {
  /** As written canonically, e.g. `10.20.0.0/16` or `fd00::/8`. */
  readonly cidr: string;
  readonly bytes: Uint8Array;
  readonly prefix: number;
}

interface Range extends Cidr {
  readonly kind: Exclude<AddressKind, 'public'>;
  readonly label: string;
}

const IPV4_RANGES: readonly Range[] = [
  // Connecting to the unspecified address reaches this machine's own listeners, so it is judged as loopback.
  range('0.0.0.0/32', 'loopback', 'unspecified (reaches this machine)'),
  range('0.0.0.0/8', 'private', '"this network"'),
  range('10.0.0.0/8', 'private', 'private (RFC 1918)'),
  range('100.64.0.0/10', 'private', 'carrier-grade NAT (RFC 6598)'),
  range('127.0.0.0/8', 'loopback', 'loopback'),
  range('169.254.0.0/16', 'linkLocal', 'link-local (cloud metadata lives here)'),
  range('172.16.0.0/12', 'private', 'private (RFC 1918)'),
  range('192.0.0.0/24', 'private', 'IETF protocol assignments'),
  range('192.0.2.0/24', 'private', 'documentation'),
  range('192.88.99.0/24', 'private', '6to4 relay anycast'),
  range('192.168.0.0/16', 'private', 'private (RFC 1918)'),
  range('198.18.0.0/15', 'private', 'benchmarking (RFC 2544)'),
  range('198.51.100.0/24', 'private', 'documentation'),
  range('203.0.113.0/24', 'private', 'documentation'),
  range('224.0.0.0/4', 'private', 'multicast'),
  range('240.0.0.0/4', 'private', 'reserved and broadcast'),
];

const IPV6_RANGES: readonly Range[] = [
  range('::/128', 'loopback', 'unspecified (reaches this machine)'),
  range('::1/128', 'loopback', 'loopback'),
  range('64:ff9b:1::/48', 'private', 'local-use NAT64'),
  range('100::/64', 'private', 'discard-only'),
  range('2001:db8::/32', 'private', 'documentation'),
  range('fc00::/7', 'private', 'unique local (RFC 4193)'),
  range('fe80::/10', 'linkLocal', 'link-local'),
  range('fec0::/10', 'private', 'site-local (deprecated)'),
  range('ff00::/8', 'private', 'multicast'),
];

/** IPv6 prefixes whose addresses reach an IPv4 host; `at` is the byte offset of that IPv4 address. */
const IPV4_CARRIERS: readonly { readonly range: Range; readonly at: number }[] = [
  { range: range('::ffff:0:0/96', 'private', 'IPv4-mapped'), at: 12 },
  { range: range('::/96', 'private', 'IPv4-compatible'), at: 12 },
  { range: range('64:ff9b::/96', 'private', 'NAT64'), at: 12 },
  { range: range('2002::/16', 'private', '6to4'), at: 2 },
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

/**
 * Whether `address` lies in `cidr`. An IPv6 address that carries an IPv4 one (mapped,
 * compatible, NAT64, 6to4) also matches an IPv4 range holding that address, so allowing
 * 10.20.0.0/16 allows ::ffff:10.20.0.1 too, as refusing it refuses both.
 */
export function cidrContains(cidr: Cidr, address: string): boolean {
  const bytes = ipv4Bytes(address) ?? ipv6Bytes(address);
  if (bytes === undefined) return false;
  if (matches(bytes, cidr)) return true;
  const embedded = classifyAddress(address)?.embeddedIpv4;
  return embedded !== undefined && matches(ipv4Bytes(embedded) ?? new Uint8Array(), cidr);
}

export type ParsedCidr = { readonly ok: true; readonly cidr: Cidr } | { readonly ok: false; readonly problem: string };

/**
 * Reads `10.20.0.0/16`, `fd00::/8`, or a bare address (one host: /32 or /128). Strict: a range
 * with bits set past its prefix (`10.0.0.1/8`) is refused, since whoever wrote it may have meant
 * a single host rather than the whole /8.
 */
export function parseCidr(text: string): ParsedCidr {
  const [address = '', prefixText, extra] = text.trim().split('/');
  if (extra !== undefined) return { ok: false, problem: `${JSON.stringify(text)} has more than one "/"` };
  if (address.includes('%')) return { ok: false, problem: `${JSON.stringify(text)} has an IPv6 zone, which a range cannot have` };
  const bytes = ipv4Bytes(address) ?? ipv6Bytes(address);
  if (bytes === undefined) {
    return { ok: false, problem: `${JSON.stringify(text)} is not an IPv4 or IPv6 range such as 10.20.0.0/16 or fd00::/8` };
  }
  const bits = bytes.length * 8;
  const family = bytes.length === 4 ? 'IPv4' : 'IPv6';
  if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) {
    return { ok: false, problem: `${JSON.stringify(text)} has prefix "${prefixText}", which is not a number from 0 to ${bits}` };
  }
  const prefix = prefixText === undefined ? bits : Number(prefixText);
  if (prefix > bits)
    return { ok: false, problem: `${JSON.stringify(text)} has prefix /${prefix}, longer than an ${family} address (${bits} bits)` };
  const network = networkOf(bytes, prefix);
  const canonical = `${formatAddress(network)}/${prefix}`;
  if (!network.every((byte, index) => byte === bytes[index])) {
    return { ok: false, problem: `${JSON.stringify(text)} has bits set past its /${prefix} prefix; write ${canonical} for the range` };
  }
  return { ok: true, cidr: { cidr: canonical, bytes: network, prefix } };
}

function networkOf(bytes: Uint8Array, prefix: number): Uint8Array {
  return bytes.map((byte, index) => {
    const kept = Math.min(8, Math.max(0, prefix - index * 8));
    return byte & ((0xff << (8 - kept)) & 0xff);
  });
}

/** Dotted decimal, or RFC 5952-style IPv6 (lower case, the longest run of zero groups as `::`). */
function formatAddress(bytes: Uint8Array): string {
  if (bytes.length === 4) return bytes.join('.');
  const groups = Array.from({ length: 8 }, (_, index) => (((bytes[index * 2] ?? 0) << 8) | (bytes[index * 2 + 1] ?? 0)).toString(16));
  let best = { start: -1, length: 0 };
  for (let start = 0; start < 8; start++) {
    let length = 0;
    while (start + length < 8 && groups[start + length] === '0') length++;
    if (length > best.length && length > 1) best = { start, length };
  }
  if (best.start < 0) return groups.join(':');
  return `${groups.slice(0, best.start).join(':')}::${groups.slice(best.start + best.length).join(':')}`;
}

function matches(bytes: Uint8Array, range: Cidr): boolean {
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
  const text = beforeFirst(address, '%');
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

function range(text: string, kind: Range['kind'], label: string): Range {
  const parsed = parseCidr(text);
  if (!parsed.ok) throw new Error(`bad built-in range: ${parsed.problem}`);
  return { ...parsed.cidr, kind, label };
}
