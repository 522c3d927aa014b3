import { describe, expect, it } from 'vitest';
import { ConfigError, resolveConfig } from '../../src/config.js';

describe('the destination policies in the hub config', () => {
  it('takes address ranges for push webhooks and for outbound connections', () => {
    const config = resolveConfig({
      flags: {
        push: { destinations: { allowedCidrs: ['10.20.0.0/16', 'fd00::/8'] } },
        outbound: { urlPolicy: { allowedCidrs: ['192.168.50.0/24'] } },
      },
    });
    expect(config.push?.destinations?.allowedCidrs).toEqual(['10.20.0.0/16', 'fd00::/8']);
    expect(config.outbound?.urlPolicy?.allowedCidrs).toEqual(['192.168.50.0/24']);
  });

  it('refuses a range that does not parse when the config is read, naming the member', () => {
    const push = (): unknown => resolveConfig({ flags: { push: { destinations: { allowedCidrs: ['10.20.0.0/16', '10.20.0.1/16'] } } } });
    expect(push).toThrow(ConfigError);
    expect(push).toThrow(
      'invalid configuration (command line): push.destinations.allowedCidrs[1]: "10.20.0.1/16" has bits set past its /16 prefix; write 10.20.0.0/16 for the range',
    );
    expect(() => resolveConfig({ flags: { outbound: { urlPolicy: { allowedCidrs: ['office'] } } } })).toThrow(
      'invalid configuration (command line): outbound.urlPolicy.allowedCidrs[0]: "office" is not an IPv4 or IPv6 range such as 10.20.0.0/16 or fd00::/8',
    );
  });
});
