import { isIPv6 } from 'node:net';

/**
 * The key one client's share is counted under (its rate-limit bucket, its connections): the
 * address itself for IPv4 (an IPv4-mapped IPv6 address as its IPv4 form), and the /64 an IPv6
 * address is in, since one host commonly holds a whole /64 and could otherwise take a share per
 * address it makes up. Anything else (an unknown address) is its own key.
 */
export function sourceKey(address: string | undefined): string {
  if (address === undefined || address === '') return 'unknown';
  const mapped = address.toLowerCase().startsWith('::ffff:') ? address.slice('::ffff:'.length) : undefined;
  if (mapped !== undefined && !mapped.includes(':')) return mapped;
  if (!isIPv6(address)) return address;
  return `${prefix64(address)}::/64`;
}

/** The first four groups of an IPv6 address, expanded (`2001:db8::1` → `2001:db8:0:0`). */
function prefix64(address: string): string {
  const bare = address.split('%')[0] ?? address;
  const [head = '', tail] = bare.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = tail === undefined ? left : [...left, ...Array.from({ length: 8 - left.length - right.length }, () => '0'), ...right];
  return groups
    .slice(0, 4)
    .map((group) => (group === '' ? '0' : group.replace(/^0+(?=.)/, '')))
    .join(':');
}
