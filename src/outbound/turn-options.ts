import type { RemoteTurnOptions } from '../client/remote-run.js';
import type { OutboundConnection } from './outbound-registry.js';

/** The first poll of a remote that does not stream comes this soon, so that a quick task is not held up for a whole interval. */
const FIRST_POLL_MS = 100;

/**
 * How a turn with a connection's remote goes, whichever binding it speaks: streamed when its
 * card advertises streaming, else polled with GetTask from 100 ms, doubling while the task is
 * unchanged, never further apart than the connection's pollIntervalMs.
 */
export function turnOptionsOf(connection: OutboundConnection): Pick<RemoteTurnOptions, 'stream' | 'pollMs'> {
  const interval = connection.config.pollIntervalMs;
  return {
    stream: connection.card.capabilities.streaming === true,
    pollMs: { min: Math.min(FIRST_POLL_MS, interval), max: interval },
  };
}
