import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { LookupAddress } from 'node:dns';
import { isIP, type Socket } from 'node:net';

/**
 * A safety net for policy tests: watches every socket the process opens and destroys, before
 * it connects, any whose target is not loopback. The tests assert `stopped` stays empty, so a
 * broken policy fails the test instead of sending traffic to 10.0.0.5 or 169.254.169.254.
 */
export interface LoopbackOnly {
  /** Sockets opened while watching. */
  readonly opened: () => number;
  /** Non-loopback targets a socket tried to reach (and was stopped from reaching). */
  readonly stopped: string[];
  dispose(): void;
}

const CHANNEL = 'net.client.socket';

export function watchLoopbackOnly(): LoopbackOnly {
  const stopped: string[] = [];
  let opened = 0;
  const onSocket = (message: unknown): void => {
    const socket = (message as { socket: Socket }).socket;
    opened += 1;
    const holder = socket as unknown as { connect: (...args: unknown[]) => Socket };
    const connect = holder.connect.bind(socket);
    // Runs before net resolves or connects: an IP literal is judged here, a hostname on 'lookup'.
    holder.connect = (...args: unknown[]): Socket => {
      const host = hostOf(args);
      if (host !== undefined && isIP(host) !== 0 && !isLoopback(host)) {
        stopped.push(host);
        socket.destroy(new Error(`test guard: refused to connect to ${host}`));
        return socket;
      }
      return connect(...args);
    };
    socket.on('lookup', (error: Error | null, address: string | LookupAddress[]) => {
      if (error) return;
      const addresses = typeof address === 'string' ? [address] : address.map((entry) => entry.address);
      const outside = addresses.filter((candidate) => !isLoopback(candidate));
      if (outside.length === 0) return;
      stopped.push(...outside);
      socket.destroy(new Error(`test guard: refused to connect to ${outside.join(', ')}`));
    });
  };
  subscribe(CHANNEL, onSocket);
  return { opened: () => opened, stopped, dispose: () => unsubscribe(CHANNEL, onSocket) };
}

function hostOf(args: unknown[]): string | undefined {
  const first: unknown = Array.isArray(args[0]) ? (args[0] as unknown[])[0] : args[0];
  if (typeof first === 'object' && first !== null && typeof (first as { host?: unknown }).host === 'string')
    return (first as { host: string }).host;
  return undefined;
}

function isLoopback(address: string): boolean {
  const bare = address.replace(/^::ffff:/i, '');
  return bare.startsWith('127.') || address === '::1';
}
