import {
  isThisProtocolVersion as is03,
  MEDIA_TYPES,
  SPEC_VERSION as SPEC_03,
  WELL_KNOWN_AGENT_CARD_PATH,
} from '../../../generated/a2a/0.3/protocol.js';
import { isRecord } from '../../../src/support/records.js';
import { observedOf } from '../../core/answers.js';
import type { Check, CheckContext } from '../../core/check.js';
import type { Exchange } from '../../core/exchange.js';
import { shape03, unknownTaskId03 } from './support.js';

/*
 * The card as an A2A 0.3 client reads it: fetched without A2A-Version (0.3 clients send none;
 * a dual-stack agent answers them with its 0.3 form), held to the 0.3 AgentCard, and its main
 * url and additional interfaces probed in the transport they declare.
 */

const JSONRPC = 'JSONRPC';

/** GET of the agent's card without A2A-Version: the card URL the run resolved, else the origin's well-known one. */
async function card03(context: CheckContext): Promise<{ exchange: Exchange; card?: Record<string, unknown> }> {
  const url = context.target.cardUrl ?? new URL(WELL_KNOWN_AGENT_CARD_PATH, context.target.url).href;
  const exchange = await context.transport.raw(undefined, { method: 'GET', url, headers: { accept: MEDIA_TYPES.json } });
  return isRecord(exchange.json) && exchange.status === 200 ? { exchange, card: exchange.json } : { exchange };
}

/** Whether `url` answers a JSON-RPC tasks/get for a task that cannot exist with a JSON-RPC response. */
async function answersJsonRpc(context: CheckContext, url: string): Promise<{ ok: boolean; exchange: Exchange }> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 'conform-v03-probe', method: 'tasks/get', params: { id: unknownTaskId03() } });
  const exchange = await context.transport.raw(body, { url, headers: { 'content-type': MEDIA_TYPES.json, accept: MEDIA_TYPES.json } });
  return { ok: isRecord(exchange.json) && exchange.json['jsonrpc'] === '2.0', exchange };
}

export const card03Checks: readonly Check[] = [
  {
    id: 'v03-card',
    title: 'The 0.3 card: served without a version header, a valid 0.3 AgentCard, its interfaces answering',
    protocol: '0.3',
    once: true,
    requirements: ['V03-CARD-001', 'V03-CARD-002', 'V03-CARD-003', 'V03-CARD-004', 'V03-CARD-005', 'V03-CARD-006', 'V03-CARD-007'],
    async run(context) {
      const { exchange, card } = await card03(context);
      if (card === undefined) {
        context.fail('V03-CARD-001', {
          message: 'the card was not served to a client that sends no A2A-Version',
          expected: 'HTTP 200 with a JSON agent card',
          observed: observedOf(exchange),
          exchange,
        });
        for (const id of ['V03-CARD-002', 'V03-CARD-003', 'V03-CARD-004', 'V03-CARD-005', 'V03-CARD-006', 'V03-CARD-007'] as const)
          context.skip(id, 'no-card', 'no card was served');
        return;
      }
      context.pass('V03-CARD-001', `GET ${exchange.request.url} without A2A-Version: HTTP 200, JSON`);
      if (shape03(context, 'V03-CARD-002', 'AgentCard', card, { exchange, what: 'the card' }))
        context.pass('V03-CARD-002', 'a valid A2A 0.3 AgentCard');

      const version = card['protocolVersion'];
      if (version === SPEC_03) context.pass('V03-CARD-003', `protocolVersion ${SPEC_03}`);
      else
        context.fail('V03-CARD-003', {
          message:
            typeof version === 'string' && is03(version)
              ? `protocolVersion is ${version}, another 0.3 release`
              : 'protocolVersion does not name 0.3.0',
          expected: `protocolVersion "${SPEC_03}"`,
          observed: JSON.stringify(version),
          exchange,
        });

      const preferred = card['preferredTransport'];
      if (typeof preferred === 'string') context.pass('V03-CARD-004', `preferredTransport ${preferred}`);
      else
        context.warn('V03-CARD-004', {
          message: 'the card declares no preferredTransport; JSONRPC is assumed, the 0.3 JSON Schema default',
          expected: 'preferredTransport naming the transport of url',
          observed: 'absent',
          exchange,
        });

      const url = card['url'];
      const transport = typeof preferred === 'string' ? preferred : JSONRPC;
      if (typeof url !== 'string') context.skip('V03-CARD-005', 'no-card', 'the card has no url (V03-CARD-002 says so)');
      else if (transport !== JSONRPC)
        context.skip('V03-CARD-005', 'other-binding', `the main url serves ${transport}, which the 0.3 checks do not speak`);
      else {
        const probe = await answersJsonRpc(context, url);
        if (probe.ok) context.pass('V03-CARD-005', `${url} answers JSON-RPC`);
        else
          context.fail('V03-CARD-005', {
            message: `the main url ${url} does not answer JSON-RPC, the preferredTransport`,
            expected: 'a JSON-RPC response to tasks/get',
            observed: observedOf(probe.exchange),
            exchange: probe.exchange,
          });
      }

      const additional = card['additionalInterfaces'];
      if (!Array.isArray(additional) || additional.length === 0) {
        context.skip('V03-CARD-006', 'feature-absent', 'the card lists no additionalInterfaces');
        context.skip('V03-CARD-007', 'feature-absent', 'the card lists no additionalInterfaces');
        return;
      }
      const entries = (additional as unknown[]).filter(isRecord);
      for (const entry of entries.filter((candidate) => candidate['transport'] === JSONRPC && typeof candidate['url'] === 'string')) {
        const probe = await answersJsonRpc(context, entry['url'] as string);
        if (probe.ok) context.pass('V03-CARD-006', `${String(entry['url'])} answers JSON-RPC`);
        else
          context.fail('V03-CARD-006', {
            message: `the additional JSONRPC interface ${String(entry['url'])} does not answer JSON-RPC`,
            expected: 'a JSON-RPC response to tasks/get',
            observed: observedOf(probe.exchange),
            exchange: probe.exchange,
          });
      }
      if (!entries.some((entry) => entry['transport'] === JSONRPC))
        context.skip('V03-CARD-006', 'other-binding', 'no additional interface is JSONRPC, the one transport the 0.3 checks speak');
      if (entries.some((entry) => entry['url'] === url && entry['transport'] === transport))
        context.pass('V03-CARD-007', 'additionalInterfaces repeats the main url and transport');
      else
        context.fail('V03-CARD-007', {
          message: 'additionalInterfaces does not list the main url with its preferredTransport',
          expected: JSON.stringify({ url, transport }),
          observed: JSON.stringify(additional).slice(0, 300),
          exchange,
        });
    },
  },
];
