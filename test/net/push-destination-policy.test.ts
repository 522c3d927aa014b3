import { describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../generated/hub/defaults.js';
import {
  DestinationPolicyError,
  checkUrl,
  pushDestinationPolicy,
  resolveUrlPolicy,
  type UrlPolicy,
} from '../../src/net/destination-policy.js';
import { refusal } from './policy-helpers.js';

/** Only the schemes of the push policy relaxed, so each row below is refused for its address alone. */
const PUSH_OVER_HTTP = pushDestinationPolicy({ allowedSchemes: ['http', 'https'] });

describe('pushDestinationPolicy', () => {
  it('takes the PushDestinationSettings defaults: https only, no loopback, private or link-local address', () => {
    const policy = pushDestinationPolicy();
    expect(policy).toMatchObject({ ...DEFAULTS.PushDestinationSettings, allowedHosts: undefined, allowedCidrs: [] });
    expect(policy.allowedSchemes).toEqual(['https']);
    expect(refusal('https://hooks.example.com/a2a', policy)).toBeUndefined();
    const plain = refusal('http://hooks.example.com/a2a', policy);
    expect(plain?.rule).toBe('allowedSchemes');
    expect(plain?.message).toBe(
      'URL policy: http://hooks.example.com/a2a is refused: scheme "http" is not in push.destinations.allowedSchemes (https)',
    );
  });

  it.each([
    // given URL, want rule, want address (the literal as the WHATWG parser normalised it)
    ['https://127.0.0.1/hook', 'allowLoopback', '127.0.0.1'],
    ['https://[::1]/hook', 'allowLoopback', '::1'],
    ['https://[::ffff:127.0.0.1]/hook', 'allowLoopback', '::ffff:7f00:1'],
    ['https://[::ffff:a9fe:a9fe]/hook', 'allowLinkLocal', '::ffff:a9fe:a9fe'],
    ['https://[::ffff:10.0.0.1]/hook', 'allowPrivate', '::ffff:a00:1'],
    ['https://2130706433/hook', 'allowLoopback', '127.0.0.1'],
    ['https://0x7f.1/hook', 'allowLoopback', '127.0.0.1'],
    ['https://0177.0.0.1/hook', 'allowLoopback', '127.0.0.1'],
    ['https://169.254.169.254/latest/meta-data/', 'allowLinkLocal', '169.254.169.254'],
    ['https://0xa9fea9fe/', 'allowLinkLocal', '169.254.169.254'],
    ['https://[fe80::1]/', 'allowLinkLocal', 'fe80::1'],
    ['https://10.1.2.3/', 'allowPrivate', '10.1.2.3'],
    ['https://192.168.1.1/', 'allowPrivate', '192.168.1.1'],
    ['https://[fd00::5]/', 'allowPrivate', 'fd00::5'],
    ['https://100.64.1.1/', 'allowPrivate', '100.64.1.1'],
    ['https://198.18.5.5/', 'allowPrivate', '198.18.5.5'],
    ['https://224.0.0.1/', 'allowPrivate', '224.0.0.1'],
    ['https://0.0.0.0/', 'allowLoopback', '0.0.0.0'],
    ['https://0/', 'allowLoopback', '0.0.0.0'],
    ['https://[::]/', 'allowLoopback', '::'],
  ])('refuses %s by default (%s)', (url, rule, address) => {
    for (const policy of [pushDestinationPolicy(), PUSH_OVER_HTTP]) {
      const error = refusal(url, policy);
      expect(error?.rule).toBe(rule);
      expect(error?.address).toBe(address);
      expect(error?.message).toContain(
        `set push.destinations.${rule}: true, or add its range to push.destinations.allowedCidrs, to allow it`,
      );
    }
    expect(refusal(url.replace(/^https/, 'http'), PUSH_OVER_HTTP)?.rule).toBe(rule);
  });

  it('refuses localhost and its subdomains by name, before any lookup', () => {
    for (const url of ['https://localhost/hook', 'https://LOCALHOST./hook', 'https://hooks.localhost:8443/']) {
      expect(refusal(url, pushDestinationPolicy())?.rule, url).toBe('allowLoopback');
    }
    expect(refusal('http://localhost:9999/', pushDestinationPolicy({ allowedSchemes: ['http'], allowLoopback: true }))).toBeUndefined();
  });

  it('allows each class when its member says so, and only that class', () => {
    const loopback = pushDestinationPolicy({ allowedSchemes: ['http'], allowLoopback: true });
    expect(refusal('http://127.0.0.1:8080/hook', loopback)).toBeUndefined();
    expect(refusal('http://[::ffff:127.0.0.1]:8080/hook', loopback)).toBeUndefined();
    expect(refusal('http://10.0.0.1/hook', loopback)?.rule).toBe('allowPrivate');
    expect(refusal('http://169.254.169.254/', pushDestinationPolicy({ allowedSchemes: ['http'], allowPrivate: true }))?.rule).toBe(
      'allowLinkLocal',
    );
  });
});

describe('allowedCidrs', () => {
  it('allows addresses inside a listed range although their class is refused, and nothing next to them', () => {
    const policy = pushDestinationPolicy({ allowedCidrs: ['10.20.0.0/16', 'fd00:1::/32', '127.0.0.1'] });
    expect(refusal('https://10.20.3.4/hook', policy)).toBeUndefined();
    expect(refusal('https://[::ffff:10.20.3.4]/hook', policy)).toBeUndefined();
    expect(refusal('https://[fd00:1:2::3]/hook', policy)).toBeUndefined();
    expect(refusal('https://127.0.0.1/hook', policy)).toBeUndefined();
    expect(refusal('https://0x7f.1/hook', policy)).toBeUndefined();
    expect(refusal('https://10.21.0.1/hook', policy)?.rule).toBe('allowPrivate');
    expect(refusal('https://[fd00:2::1]/hook', policy)?.rule).toBe('allowPrivate');
    expect(refusal('https://127.0.0.2/hook', policy)?.rule).toBe('allowLoopback');
    expect(refusal('https://169.254.169.254/', policy)?.rule).toBe('allowLinkLocal');
    // A range is an exception to the address classes, not a second scheme or host list.
    expect(refusal('http://10.20.3.4/hook', policy)?.rule).toBe('allowedSchemes');
    expect(
      refusal('https://10.20.3.4/', pushDestinationPolicy({ allowedCidrs: ['10.20.0.0/16'], allowedHosts: ['hooks.example.com'] }))?.rule,
    ).toBe('allowedHosts');
  });

  it('lets localhost through the URL check when its range holds 127.0.0.1', () => {
    expect(refusal('https://localhost/hook', pushDestinationPolicy({ allowedCidrs: ['127.0.0.0/8'] }))).toBeUndefined();
    expect(refusal('https://localhost/hook', pushDestinationPolicy({ allowedCidrs: ['10.0.0.0/8'] }))?.rule).toBe('allowLoopback');
  });

  it('works for the client policy too, keeping its own defaults', () => {
    const client: UrlPolicy = { allowedCidrs: ['192.168.50.0/24'] };
    expect(refusal('http://192.168.50.7/', client)).toBeUndefined();
    expect(refusal('http://192.168.51.7/', client)?.message).toContain(
      'set urlPolicy.allowPrivate: true, or add its range to urlPolicy.allowedCidrs, to allow it',
    );
    expect(refusal('http://127.0.0.1/', client)).toBeUndefined();
  });

  it('is kept in canonical form', () => {
    expect(pushDestinationPolicy({ allowedCidrs: ['FD00:0:0::/8', ' 10.0.0.0/8', '192.0.2.7'] }).allowedCidrs).toEqual([
      'fd00::/8',
      '10.0.0.0/8',
      '192.0.2.7/32',
    ]);
  });

  it('refuses a range that does not parse, naming the member and what is wrong', () => {
    const bad = (make: () => unknown): DestinationPolicyError => {
      try {
        make();
      } catch (error) {
        if (error instanceof DestinationPolicyError) return error;
        throw error;
      }
      throw new Error('no error');
    };
    const push = bad(() => pushDestinationPolicy({ allowedCidrs: ['10.0.0.0/8', '10.0.0.1/8'] }));
    expect(push.field).toBe('push.destinations.allowedCidrs[1]');
    expect(push.message).toBe(
      'push.destinations.allowedCidrs[1]: "10.0.0.1/8" has bits set past its /8 prefix; write 10.0.0.0/8 for the range',
    );
    const client = bad(() => checkUrl('http://10.0.0.1/', { allowedCidrs: ['intranet'] }));
    expect(client.field).toBe('urlPolicy.allowedCidrs[0]');
    expect(client.message).toBe('urlPolicy.allowedCidrs[0]: "intranet" is not an IPv4 or IPv6 range such as 10.20.0.0/16 or fd00::/8');
    expect(bad(() => resolveUrlPolicy({ allowedCidrs: ['::/200'] })).message).toContain('longer than an IPv6 address');
  });
});
