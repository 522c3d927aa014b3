import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { arbitraryFor } from '../../conformance/arbitraries/from-schema.js';
import { TASK_STATES as STATES_03 } from '../../generated/a2a/0.3/task-states.js';
import type * as V03 from '../../generated/a2a/0.3/types.js';
import type * as V10 from '../../generated/a2a/1.0/types.js';
import { A2A_0_3, A2A_1_0 } from '../../src/protocol/a2a-schema.js';
import { agentCardFrom03, agentCardTo03 } from '../../src/protocol/v03/agent-cards.js';
import {
  artifactUpdateFrom03,
  artifactUpdateTo03,
  sendResultFrom03,
  sendResultTo03,
  statusUpdateFrom03,
  statusUpdateTo03,
  streamResponseFrom03,
  streamResponseTo03,
} from '../../src/protocol/v03/events.js';
import { messageFrom03, messageTo03 } from '../../src/protocol/v03/messages.js';
import { sendParamsFrom03, sendParamsTo03 } from '../../src/protocol/v03/params.js';
import { partFrom03, partTo03 } from '../../src/protocol/v03/parts.js';
import { taskPushConfigFrom03, taskPushConfigTo03 } from '../../src/protocol/v03/push-configs.js';
import { securitySchemeFrom03, securitySchemeTo03 } from '../../src/protocol/v03/security-schemes.js';
import { statePairs, stateFrom03 } from '../../src/protocol/v03/states.js';
import { artifactFrom03, artifactTo03, statusFrom03, statusTo03, taskFrom03, taskTo03 } from '../../src/protocol/v03/tasks.js';
import { UntranslatableError } from '../../src/protocol/untranslatable.js';
import { checkValue } from '../../src/protocol/validation.js';
import { setOwn } from '../../src/support/own-property.js';
import { isRecord } from '../../src/support/records.js';

const RUNS = Number(process.env['FC_RUNS'] ?? 150);
const SEED = process.env['FC_SEED'] === undefined ? undefined : Number(process.env['FC_SEED']);
const params = { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }) };

type Json = unknown;

/**
 * The lossy cases of src/protocol/v03 (docs/spec-policy.md), applied to a 1.0 value: what is
 * left is what must survive 1.0 → 0.3 → 1.0 unchanged. Each rule is one documented loss.
 */
function lossless10(value: Json, rootKey?: string): Json {
  const walk = (node: Json, key?: string): Json => {
    if (Array.isArray(node))
      return node.map((item) => walk(item, key === 'parts' ? 'part' : key === 'supportedInterfaces' ? 'interface' : undefined));
    if (!isRecord(node)) return node;
    const out: Record<string, Json> = {};
    for (const [name, member] of Object.entries(node)) {
      if (name === 'tenant' || name === 'signatures') continue; // 0.3 has no tenants; signatures sign the other document
      setOwn(out, name, walk(member, name)); // a map key may be __proto__
    }
    if (key === 'part' && ('text' in out || 'data' in out)) {
      delete out['mediaType']; // 0.3 has media types and file names on file parts only
      delete out['filename'];
      if ('data' in out && !isRecord(out['data'])) out['data'] = { value: out['data'] }; // 0.3 data is an object
    }
    if (isRecord(out['status']) && typeof out['id'] === 'string' && !('taskId' in out)) out['contextId'] ??= 'ctx-0'; // 0.3 tasks need one
    if (key === 'capabilities' && Array.isArray(out['extensions']))
      out['extensions'] = out['extensions'].filter((extension) => isRecord(extension) && 'uri' in extension);
    if (key === 'interface') out['protocolVersion'] = '0.3'; // one version per 0.3 card
    if (key === 'configuration' && isRecord(out['taskPushNotificationConfig'])) delete out['taskPushNotificationConfig']['taskId'];
    if (key === 'securitySchemes') return Object.fromEntries(Object.entries(out).filter(([, scheme]) => writableIn03(scheme)));
    if (key === 'flows' && isRecord(out['authorizationCode'])) delete out['authorizationCode']['pkceRequired'];
    if (key === 'flows') for (const flow of ['implicit', 'password']) if (isRecord(out[flow])) out[flow]['scopes'] ??= {};
    if (key === 'schemes' && Object.values(out).every(isRecord))
      for (const [name, scopes] of Object.entries(out))
        if (isRecord(scopes) && Array.isArray(scopes['list']) && scopes['list'].length === 0) out[name] = {};
    if (isRecord(out['schemes']) && Object.keys(out['schemes']).length === 0 && Object.keys(out).length === 1) delete out['schemes'];
    return out;
  };
  return walk(value, rootKey);
}

/** A security scheme 0.3 can write at all: not a device-code flow, no implicit flow without its URL, no password flow without its token URL. */
function writableIn03(scheme: Json): boolean {
  const flows = isRecord(scheme) && isRecord(scheme['oauth2SecurityScheme']) ? scheme['oauth2SecurityScheme']['flows'] : undefined;
  if (!isRecord(flows)) return true;
  if ('deviceCode' in flows) return false;
  if (isRecord(flows['implicit']) && !('authorizationUrl' in flows['implicit'])) return false;
  return !(isRecord(flows['password']) && !('tokenUrl' in flows['password']));
}

/** The same for a 0.3 value: what must survive 0.3 → 1.0 → 0.3 unchanged. */
function lossless03(value: Json): Json {
  const walk = (node: Json): Json => {
    if (Array.isArray(node)) return node.map((item) => walk(item));
    if (!isRecord(node)) return node;
    const out: Record<string, Json> = {};
    for (const [name, member] of Object.entries(node)) {
      if (name === 'signatures' || name === 'stateTransitionHistory') continue;
      setOwn(out, name, walk(member)); // a map key may be __proto__
    }
    if (out['state'] === 'unknown') out['state'] = 'working'; // untranslatable: tested on its own below
    if (out['kind'] === 'status-update' && isRecord(out['status'])) {
      const state = STATES_03[out['status']['state'] as V03.TaskState];
      out['final'] = state.class === 'terminal' || state.class === 'interrupted'; // derived from the state in 0.3 → 1.0 → 0.3
    }
    // Rewritten in their parents, by what the parent is: a map (securitySchemes) may have a key
    // named `flows` or `authentication` that is no such member.
    const authentication = out['authentication'];
    if (typeof out['url'] === 'string' && isRecord(authentication) && Array.isArray(authentication['schemes'])) {
      out['authentication'] = { ...authentication, schemes: [authentication['schemes'][0] ?? 'Bearer'] }; // 1.0 has one
    }
    const flows = out['flows'];
    if (out['type'] === 'oauth2' && isRecord(flows)) {
      const first = ['authorizationCode', 'clientCredentials', 'implicit', 'password'].find((flow) => flow in flows);
      out['flows'] =
        first === undefined ? { clientCredentials: { tokenUrl: 'https://auth.example/token', scopes: {} } } : { [first]: flows[first] };
    }
    if (typeof out['url'] === 'string' && typeof out['protocolVersion'] === 'string' && 'skills' in out) {
      const main = { url: out['url'], transport: out['preferredTransport'] ?? 'JSONRPC' };
      const listed: Json[] = Array.isArray(out['additionalInterfaces']) ? (out['additionalInterfaces'] as Json[]) : [];
      const others = listed.filter((entry) => !(isRecord(entry) && entry['url'] === main.url && entry['transport'] === main.transport));
      out['preferredTransport'] = main.transport;
      out['additionalInterfaces'] = [main, ...others];
      out['protocolVersion'] = '0.3.0';
    }
    return out;
  };
  return walk(value);
}

/** FieldViolation reasons of value constraints that 1.0 adds to what 0.3 allowed. */
const STRICTER_IN_1_0 = new Set(['TOO_SHORT', 'TOO_FEW_ITEMS', 'INVALID_FORMAT', 'OUT_OF_RANGE']);

interface Pair {
  readonly name: string;
  readonly def10: string;
  readonly def03: string;
  readonly to03: (value: never) => unknown;
  readonly from03: (value: never) => unknown;
  /** Makes a generated 1.0 value one this def's translation accepts (a member 0.3 requires). */
  readonly prepare10?: (value: Record<string, Json>) => Json;
}

const PAIRS: Pair[] = [
  { name: 'Part', def10: 'Part', def03: 'Part', to03: partTo03, from03: partFrom03 },
  { name: 'Message', def10: 'Message', def03: 'Message', to03: messageTo03, from03: messageFrom03 },
  { name: 'TaskStatus', def10: 'TaskStatus', def03: 'TaskStatus', to03: statusTo03, from03: statusFrom03 },
  { name: 'Artifact', def10: 'Artifact', def03: 'Artifact', to03: artifactTo03, from03: artifactFrom03 },
  { name: 'Task', def10: 'Task', def03: 'Task', to03: taskTo03, from03: taskFrom03 },
  {
    name: 'TaskStatusUpdateEvent',
    def10: 'TaskStatusUpdateEvent',
    def03: 'TaskStatusUpdateEvent',
    to03: statusUpdateTo03,
    from03: statusUpdateFrom03,
  },
  {
    name: 'TaskArtifactUpdateEvent',
    def10: 'TaskArtifactUpdateEvent',
    def03: 'TaskArtifactUpdateEvent',
    to03: artifactUpdateTo03,
    from03: artifactUpdateFrom03,
  },
  {
    name: 'stream events',
    def10: 'StreamResponse',
    def03: 'SendStreamingMessageResult',
    to03: streamResponseTo03,
    from03: streamResponseFrom03,
  },
  { name: 'send results', def10: 'SendMessageResponse', def03: 'SendMessageResult', to03: sendResultTo03, from03: sendResultFrom03 },
  {
    name: 'push configs',
    def10: 'TaskPushNotificationConfig',
    def03: 'TaskPushNotificationConfig',
    to03: taskPushConfigTo03,
    from03: taskPushConfigFrom03,
    prepare10: (value) => ({ ...value, taskId: value['taskId'] ?? 'task-0' }),
  },
  { name: 'send params', def10: 'SendMessageRequest', def03: 'MessageSendParams', to03: sendParamsTo03, from03: sendParamsFrom03 },
  { name: 'security schemes', def10: 'SecurityScheme', def03: 'SecurityScheme', to03: securitySchemeTo03, from03: securitySchemeFrom03 },
  { name: 'agent cards', def10: 'AgentCard', def03: 'AgentCard', to03: agentCardTo03, from03: agentCardFrom03 },
];

const arbitrary10 = (pair: Pair): fc.Arbitrary<Json> =>
  arbitraryFor(A2A_1_0.document, pair.def10).map((value) => {
    const prepared = pair.prepare10 && isRecord(value) ? pair.prepare10(value) : value;
    // A security scheme on its own is a value of securitySchemes, so it is made writable the same way.
    if (pair.def10 === 'SecurityScheme') return lossless10({ securitySchemes: { only: prepared } });
    return lossless10(prepared, pair.def10 === 'Part' ? 'part' : undefined);
  });

const exact03 = (def: string, value: Json) => {
  const checked = checkValue(A2A_0_3, def as never, value, { flavour: 'exact' });
  return checked.ok ? [] : checked.violations;
};
const exact10 = (def: string, value: Json) => {
  const checked = checkValue(A2A_1_0, def as never, value, { flavour: 'exact' });
  return checked.ok ? [] : checked.violations;
};

describe('A2A 0.3 ↔ 1.0 translation (src/protocol/v03)', () => {
  it.each(PAIRS)('$name: a 1.0 value becomes a valid 0.3 value and comes back as itself', (pair) => {
    fc.assert(
      fc.property(arbitrary10(pair), (generated) => {
        const value =
          pair.def10 === 'SecurityScheme' ? ((generated as { securitySchemes: { only?: Json } }).securitySchemes.only ?? null) : generated;
        fc.pre(value !== null && !(pair.def10 === 'AgentCard' && !hasInterface(value)));
        expect(exact10(pair.def10, value)).toEqual([]);
        const old = pair.to03(value as never);
        expect(exact03(pair.def03, old)).toEqual([]);
        expect(pair.from03(old as never)).toEqual(value);
      }),
      params,
    );
  });

  it.each(PAIRS)('$name: a 0.3 value becomes a valid 1.0 value and comes back as itself', (pair) => {
    fc.assert(
      fc.property(arbitraryFor(A2A_0_3.document, pair.def03).map(lossless03), (value) => {
        expect(exact03(pair.def03, value)).toEqual([]);
        const current = pair.from03(value as never);
        // 1.0 constrains values 0.3 leaves free (non-empty ids and parts, RFC 3339 timestamps,
        // base64 bytes): those the 1.0 validators refuse after translation; no shape may be wrong.
        const structural = exact10(pair.def10, current).filter((violation) => !STRICTER_IN_1_0.has(violation.reason ?? ''));
        expect(structural).toEqual([]);
        expect(pair.to03(current as never)).toEqual(value);
      }),
      params,
    );
  });

  it('pairs every 0.3 task state with the 1.0 state of the same name, except unknown', () => {
    expect(statePairs()).toEqual([
      ['submitted', 'TASK_STATE_SUBMITTED'],
      ['working', 'TASK_STATE_WORKING'],
      ['input-required', 'TASK_STATE_INPUT_REQUIRED'],
      ['completed', 'TASK_STATE_COMPLETED'],
      ['canceled', 'TASK_STATE_CANCELED'],
      ['failed', 'TASK_STATE_FAILED'],
      ['rejected', 'TASK_STATE_REJECTED'],
      ['auth-required', 'TASK_STATE_AUTH_REQUIRED'],
      ['unknown', undefined],
    ]);
  });
});

describe('the documented lossy cases', () => {
  const message10: V10.Message = { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hi' }] };

  it('a 0.3 task in state unknown is untranslatable, naming the member', () => {
    const task: V03.Task = { kind: 'task', id: 't1', contextId: 'c1', status: { state: 'unknown' } };
    expect(() => taskFrom03(task)).toThrow(UntranslatableError);
    expect(() => taskFrom03(task)).toThrow(/^status\.state: A2A 0\.3 state "unknown" has no 1\.0 counterpart/);
    expect(() => stateFrom03('unknown', 'result.status.state')).toThrow(/^result\.status\.state: /);
  });

  it('a 1.0 task without a contextId cannot be a 0.3 task', () => {
    expect(() => taskTo03({ id: 't1', status: { state: 'TASK_STATE_WORKING' } })).toThrow(/^contextId: task t1 has no contextId/);
  });

  it("a text part's media type and file name are dropped; a file part keeps both", () => {
    expect(partTo03({ text: 'hi', mediaType: 'text/markdown', filename: 'a.md' })).toEqual({ kind: 'text', text: 'hi' });
    expect(partTo03({ url: 'https://x/a.png', mediaType: 'image/png', filename: 'a.png' })).toEqual({
      kind: 'file',
      file: { uri: 'https://x/a.png', mimeType: 'image/png', name: 'a.png' },
    });
    expect(partFrom03({ kind: 'file', file: { bytes: 'aGk=', mimeType: 'text/plain' } })).toEqual({ raw: 'aGk=', mediaType: 'text/plain' });
  });

  it('a data value that is not an object is wrapped as {value}', () => {
    expect(partTo03({ data: [1, 2, 3] })).toEqual({ kind: 'data', data: { value: [1, 2, 3] } });
    expect(partTo03({ data: 'text' })).toEqual({ kind: 'data', data: { value: 'text' } });
  });

  it("a status event's final is derived from its state, true for terminal and interrupted states", () => {
    const event = (state: V10.TaskState) => statusUpdateTo03({ taskId: 't', contextId: 'c', status: { state } }).final;
    expect([
      event('TASK_STATE_WORKING'),
      event('TASK_STATE_INPUT_REQUIRED'),
      event('TASK_STATE_COMPLETED'),
      event('TASK_STATE_SUBMITTED'),
    ]).toEqual([false, true, true, false]);
  });

  it('blocking is the negation of returnImmediately, and absent stays absent', () => {
    const send = (returnImmediately?: boolean) =>
      sendParamsTo03({ message: message10, ...(returnImmediately === undefined ? {} : { configuration: { returnImmediately } }) })
        .configuration;
    expect([send(true), send(false), send()]).toEqual([{ blocking: false }, { blocking: true }, undefined]);
  });

  it('a push config keeps the first of several 0.3 authentication schemes and loses its tenant going to 0.3', () => {
    const config: V03.TaskPushNotificationConfig = {
      taskId: 't1',
      pushNotificationConfig: { url: 'https://hook.example/a', authentication: { schemes: ['Bearer', 'Basic'], credentials: 'c' } },
    };
    expect(taskPushConfigFrom03(config)).toEqual({
      taskId: 't1',
      url: 'https://hook.example/a',
      authentication: { scheme: 'Bearer', credentials: 'c' },
    });
    expect(taskPushConfigTo03({ tenant: 'acme', taskId: 't1', url: 'https://hook.example/a' })).toEqual({
      taskId: 't1',
      pushNotificationConfig: { url: 'https://hook.example/a' },
    });
    expect(() =>
      taskPushConfigFrom03({ taskId: 't1', pushNotificationConfig: { url: 'https://x', authentication: { schemes: [] } } }),
    ).toThrow(/^pushNotificationConfig\.authentication\.schemes: lists no scheme/);
  });

  it("a 1.0 card's 0.3 view lists its 0.3 interfaces only, drops tenants and signatures, and needs one 0.3 interface", () => {
    const card: V10.AgentCard = {
      name: 'dual',
      description: 'both versions',
      version: '1.0.0',
      supportedInterfaces: [
        { url: 'https://hub.example/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: 'acme' },
        { url: 'https://hub.example/a2a', protocolBinding: 'JSONRPC', protocolVersion: '0.3', tenant: 'acme' },
        { url: 'https://hub.example/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '0.3' },
      ],
      capabilities: { streaming: true, extendedAgentCard: true },
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [],
      signatures: [{ protected: 'e30', signature: 'c2ln' }],
    };
    const old = agentCardTo03(card);
    expect(old).toMatchObject({
      protocolVersion: '0.3.0',
      url: 'https://hub.example/a2a',
      preferredTransport: 'JSONRPC',
      additionalInterfaces: [
        { url: 'https://hub.example/a2a', transport: 'JSONRPC' },
        { url: 'https://hub.example/rest', transport: 'HTTP+JSON' },
      ],
      capabilities: { streaming: true },
      supportsAuthenticatedExtendedCard: true,
    });
    expect(old).not.toHaveProperty('signatures');
    expect(exact03('AgentCard', old)).toEqual([]);
    expect(() => agentCardTo03({ ...card, supportedInterfaces: card.supportedInterfaces.slice(0, 1) })).toThrow(
      /^supportedInterfaces: no interface speaks A2A 0\.3/,
    );
  });

  it('an OAuth scheme with several 0.3 flows keeps the first; a device-code flow cannot be written in 0.3', () => {
    const scheme: V03.SecurityScheme = {
      type: 'oauth2',
      flows: {
        clientCredentials: { tokenUrl: 'https://auth.example/token', scopes: {} },
        password: { tokenUrl: 'https://auth.example/token', scopes: {} },
      },
    };
    expect(securitySchemeFrom03(scheme)).toEqual({
      oauth2SecurityScheme: { flows: { clientCredentials: { tokenUrl: 'https://auth.example/token', scopes: {} } } },
    });
    expect(() =>
      securitySchemeTo03({
        oauth2SecurityScheme: { flows: { deviceCode: { deviceAuthorizationUrl: 'https://a/d', tokenUrl: 'https://a/t', scopes: {} } } },
      }),
    ).toThrow(/^securityScheme\.oauth2SecurityScheme\.flows\.deviceCode: A2A 0\.3 has no device code flow/);
  });
});

function hasInterface(card: Json): boolean {
  return isRecord(card) && Array.isArray(card['supportedInterfaces']) && card['supportedInterfaces'].length > 0;
}
