import { isIP } from 'node:net';
import { beforeFirst } from '../support/trim.js';

/**
 * Whether a socket's remote address is this machine: 127.0.0.0/8, ::1, or an IPv4-mapped
 * loopback (::ffff:127.x.y.z). Decided from the socket alone; headers such as
 * X-Forwarded-For are never consulted, since any client can send them.
 */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (address === undefined) return false;
  const bare = beforeFirst(address, '%');
  if (isIP(bare) === 4) return bare.startsWith('127.');
  if (isIP(bare) !== 6) return false;
  const lower = bare.toLowerCase();
  if (lower === '::1' || lower === '0:0:0:0:0:0:0:1') return true;
  const mapped = /^(?:0:0:0:0:0:|::)ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  return mapped?.[1] !== undefined && mapped[1].startsWith('127.');
}
