import { describe, expect, it } from 'vitest';
import type { AgentCard } from '../../generated/a2a/1.0/types.js';
import type { OutboundConnection } from '../../src/outbound/outbound-registry.js';
import { turnOptionsOf } from '../../src/outbound/turn-options.js';
import { fakeRestCard } from '../client/fake-agent.js';

/** How a turn with a connection's remote goes: streamed or polled, at the connection's own interval. */

function connection(streaming: boolean, pollIntervalMs: number): OutboundConnection {
  const card: AgentCard = { ...fakeRestCard('http://127.0.0.1:1/rest'), capabilities: { streaming } };
  return { config: { pollIntervalMs }, card } as unknown as OutboundConnection;
}

describe('turnOptionsOf', () => {
  it('streams when the card says so, else polls from 100 ms up to the connection pollIntervalMs', () => {
    expect(turnOptionsOf(connection(true, 1000))).toEqual({ stream: true, pollMs: { min: 100, max: 1000 } });
    expect(turnOptionsOf(connection(false, 5000))).toEqual({ stream: false, pollMs: { min: 100, max: 5000 } });
  });

  it('an interval under 100 ms is kept from the first poll on', () => {
    expect(turnOptionsOf(connection(false, 40)).pollMs).toEqual({ min: 40, max: 40 });
  });
});
