import { describe, expect, it } from 'vitest';
import { sourceKey } from '../../src/support/source-address.js';

/** The key a client's share (rate-limit bucket, connections) is counted under. */
describe('sourceKey', () => {
  it.each([
    ['192.0.2.7', '192.0.2.7'],
    ['::ffff:192.0.2.7', '192.0.2.7'],
    ['::FFFF:192.0.2.7', '192.0.2.7'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::9', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002:ffff::1', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    [undefined, 'unknown'],
    ['', 'unknown'],
    ['not an address', 'not an address'],
  ])('%s → %s', (address, want) => {
    expect(sourceKey(address)).toBe(want);
  });

  it('gives every address of one /64 the same key, and another /64 another', () => {
    expect(sourceKey('2001:db8:aa:bb::1')).toBe(sourceKey('2001:db8:aa:bb:ffff:ffff:ffff:ffff'));
    expect(sourceKey('2001:db8:aa:bb::1')).not.toBe(sourceKey('2001:db8:aa:bc::1'));
  });
});
