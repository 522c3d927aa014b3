import { describe, expect, it } from 'vitest';
import { cidrContains, classifyAddress, parseCidr, type Cidr } from '../../src/net/ip-ranges.js';

/** Each class the destination policy refuses, with the range it must name: given an address, want its class. */
const REFUSED_BY_CLASS: { readonly given: string; readonly kind: string; readonly range: string }[] = [
  // loopback
  { given: '127.0.0.1', kind: 'loopback', range: '127.0.0.0/8 loopback' },
  { given: '127.1.2.3', kind: 'loopback', range: '127.0.0.0/8 loopback' },
  { given: '::1', kind: 'loopback', range: '::1/128 loopback' },
  // private: RFC 1918 and RFC 4193
  { given: '10.0.0.1', kind: 'private', range: '10.0.0.0/8 private (RFC 1918)' },
  { given: '172.16.0.1', kind: 'private', range: '172.16.0.0/12 private (RFC 1918)' },
  { given: '172.31.255.254', kind: 'private', range: '172.16.0.0/12 private (RFC 1918)' },
  { given: '192.168.10.20', kind: 'private', range: '192.168.0.0/16 private (RFC 1918)' },
  { given: 'fc00::1', kind: 'private', range: 'fc00::/7 unique local (RFC 4193)' },
  { given: 'fd12:3456:789a::1', kind: 'private', range: 'fc00::/7 unique local (RFC 4193)' },
  // link-local, where cloud metadata lives
  { given: '169.254.169.254', kind: 'linkLocal', range: '169.254.0.0/16 link-local (cloud metadata lives here)' },
  { given: 'fe80::1', kind: 'linkLocal', range: 'fe80::/10 link-local' },
  { given: 'fe80::a:b%eth0', kind: 'linkLocal', range: 'fe80::/10 link-local' },
  // CGNAT (RFC 6598) and benchmarking (RFC 2544)
  { given: '100.64.0.1', kind: 'private', range: '100.64.0.0/10 carrier-grade NAT (RFC 6598)' },
  { given: '100.127.255.254', kind: 'private', range: '100.64.0.0/10 carrier-grade NAT (RFC 6598)' },
  { given: '198.18.0.1', kind: 'private', range: '198.18.0.0/15 benchmarking (RFC 2544)' },
  { given: '198.19.255.254', kind: 'private', range: '198.18.0.0/15 benchmarking (RFC 2544)' },
  // multicast
  { given: '224.0.0.251', kind: 'private', range: '224.0.0.0/4 multicast' },
  { given: '239.255.255.250', kind: 'private', range: '224.0.0.0/4 multicast' },
  { given: 'ff02::fb', kind: 'private', range: 'ff00::/8 multicast' },
  // unspecified: judged as loopback, since connecting to it reaches this machine
  { given: '0.0.0.0', kind: 'loopback', range: '0.0.0.0/32 unspecified (reaches this machine)' },
  { given: '::', kind: 'loopback', range: '::/128 unspecified (reaches this machine)' },
  { given: '0.1.2.3', kind: 'private', range: '0.0.0.0/8 "this network"' },
  // IPv4-mapped (::ffff:0:0/96) and IPv4-compatible (::/96) forms of each of them
  { given: '::ffff:127.0.0.1', kind: 'loopback', range: '127.0.0.0/8 loopback via IPv4-mapped 127.0.0.1' },
  { given: '::ffff:7f00:1', kind: 'loopback', range: '127.0.0.0/8 loopback via IPv4-mapped 127.0.0.1' },
  { given: '::ffff:10.0.0.1', kind: 'private', range: '10.0.0.0/8 private (RFC 1918) via IPv4-mapped 10.0.0.1' },
  { given: '::ffff:c0a8:101', kind: 'private', range: '192.168.0.0/16 private (RFC 1918) via IPv4-mapped 192.168.1.1' },
  {
    given: '::ffff:a9fe:a9fe',
    kind: 'linkLocal',
    range: '169.254.0.0/16 link-local (cloud metadata lives here) via IPv4-mapped 169.254.169.254',
  },
  { given: '::ffff:100.64.0.1', kind: 'private', range: '100.64.0.0/10 carrier-grade NAT (RFC 6598) via IPv4-mapped 100.64.0.1' },
  { given: '::ffff:198.18.0.1', kind: 'private', range: '198.18.0.0/15 benchmarking (RFC 2544) via IPv4-mapped 198.18.0.1' },
  { given: '::ffff:224.0.0.1', kind: 'private', range: '224.0.0.0/4 multicast via IPv4-mapped 224.0.0.1' },
  { given: '::ffff:0.0.0.0', kind: 'loopback', range: '0.0.0.0/32 unspecified (reaches this machine) via IPv4-mapped 0.0.0.0' },
  { given: '::127.0.0.1', kind: 'loopback', range: '127.0.0.0/8 loopback via IPv4-compatible 127.0.0.1' },
  {
    given: '::a9fe:a9fe',
    kind: 'linkLocal',
    range: '169.254.0.0/16 link-local (cloud metadata lives here) via IPv4-compatible 169.254.169.254',
  },
  { given: '0:0:0:0:0:ffff:0a00:0001', kind: 'private', range: '10.0.0.0/8 private (RFC 1918) via IPv4-mapped 10.0.0.1' },
];

const PUBLIC = [
  '8.8.8.8',
  '100.63.255.255',
  '100.128.0.1',
  '172.32.0.1',
  '198.17.255.255',
  '198.20.0.1',
  '223.255.255.255',
  '2606:4700::1111',
  '::ffff:8.8.8.8',
];

describe('classifyAddress refuses by class', () => {
  it.each(REFUSED_BY_CLASS)('$given is $kind: $range', ({ given, kind, range }) => {
    expect(classifyAddress(given)).toMatchObject({ kind, range });
  });

  it.each(PUBLIC)('%s is public', (given) => {
    expect(classifyAddress(given)?.kind).toBe('public');
    expect(classifyAddress(given)?.range).toBeUndefined();
  });

  it('is not fooled by hostnames that look like addresses', () => {
    for (const given of ['localhost', '127.0.0.1.nip.io', '0x7f.1', '2130706433', ''])
      expect(classifyAddress(given), given).toBeUndefined();
  });
});

describe('parseCidr', () => {
  function parsed(text: string): Cidr {
    const result = parseCidr(text);
    if (!result.ok) throw new Error(result.problem);
    return result.cidr;
  }

  it.each([
    ['10.20.0.0/16', '10.20.0.0/16'],
    ['127.0.0.0/8', '127.0.0.0/8'],
    ['0.0.0.0/0', '0.0.0.0/0'],
    ['192.0.2.7', '192.0.2.7/32'],
    [' 10.0.0.0/8 ', '10.0.0.0/8'],
    ['fd00::/8', 'fd00::/8'],
    ['FD00:0:0:0::/64', 'fd00::/64'],
    ['::1', '::1/128'],
    ['::/0', '::/0'],
    ['2001:db8:0:1:0:0:0:0/64', '2001:db8:0:1::/64'],
  ])('reads %j as %s', (given, want) => {
    expect(parsed(given).cidr).toBe(want);
  });

  it.each([
    ['10.0.0.0/33', '"10.0.0.0/33" has prefix /33, longer than an IPv4 address (32 bits)'],
    ['fd00::/129', '"fd00::/129" has prefix /129, longer than an IPv6 address (128 bits)'],
    ['10.0.0.1/8', '"10.0.0.1/8" has bits set past its /8 prefix; write 10.0.0.0/8 for the range'],
    ['fd00::1/8', '"fd00::1/8" has bits set past its /8 prefix; write fd00::/8 for the range'],
    ['10.0.0.0/-1', '"10.0.0.0/-1" has prefix "-1", which is not a number from 0 to 32'],
    ['10.0.0.0/', '"10.0.0.0/" has prefix "", which is not a number from 0 to 32'],
    ['10.0.0.0/8/8', '"10.0.0.0/8/8" has more than one "/"'],
    ['fe80::%eth0/10', '"fe80::%eth0/10" has an IPv6 zone, which a range cannot have'],
    ['10.0/8', '"10.0/8" is not an IPv4 or IPv6 range such as 10.20.0.0/16 or fd00::/8'],
    ['example.com/24', '"example.com/24" is not an IPv4 or IPv6 range such as 10.20.0.0/16 or fd00::/8'],
    ['', '"" is not an IPv4 or IPv6 range such as 10.20.0.0/16 or fd00::/8'],
  ])('refuses %j: %s', (given, problem) => {
    expect(parseCidr(given)).toEqual({ ok: false, problem });
  });

  it('matches addresses inside the range only, including IPv4 carried in IPv6', () => {
    const office = parsed('10.20.0.0/16');
    expect(cidrContains(office, '10.20.0.1')).toBe(true);
    expect(cidrContains(office, '10.20.255.255')).toBe(true);
    expect(cidrContains(office, '10.21.0.0')).toBe(false);
    expect(cidrContains(office, '::ffff:10.20.3.4')).toBe(true);
    expect(cidrContains(office, '::ffff:a15:1')).toBe(false);
    expect(cidrContains(office, 'agent.example.com')).toBe(false);
    const odd = parsed('100.64.0.0/10');
    expect(cidrContains(odd, '100.127.255.255')).toBe(true);
    expect(cidrContains(odd, '100.128.0.0')).toBe(false);
    const ula = parsed('fd00::/8');
    expect(cidrContains(ula, 'fd12::1')).toBe(true);
    expect(cidrContains(ula, 'fc00::1')).toBe(false);
    expect(cidrContains(ula, '10.0.0.1')).toBe(false);
    expect(cidrContains(parsed('::1'), '::1')).toBe(true);
    expect(cidrContains(parsed('::1'), '127.0.0.1')).toBe(false);
  });
});
