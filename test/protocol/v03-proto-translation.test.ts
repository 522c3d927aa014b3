import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { arbitraryFor } from '../../conformance/arbitraries/from-schema.js';
import type * as V03 from '../../generated/a2a/0.3/types.js';
import { A2A_0_3, A2A_0_3_REST } from '../../src/protocol/a2a-schema.js';
import { agentCardFromProto, agentCardToProto } from '../../src/protocol/v03/proto/agent-cards.js';
import { sendResultFromProto, sendResultToProto, streamEventFromProto, streamEventToProto } from '../../src/protocol/v03/proto/events.js';
import { messageFromProto, messageToProto } from '../../src/protocol/v03/proto/messages.js';
import { partFromProto, partToProto } from '../../src/protocol/v03/proto/parts.js';
import { taskPushConfigFromProto, taskPushConfigToProto } from '../../src/protocol/v03/proto/push-configs.js';
import { sendParamsFromProto, sendParamsToProto } from '../../src/protocol/v03/proto/requests.js';
import {
  artifactFromProto,
  artifactToProto,
  statusFromProto,
  statusToProto,
  taskFromProto,
  taskToProto,
} from '../../src/protocol/v03/proto/tasks.js';
import { UntranslatableError } from '../../src/protocol/untranslatable.js';
import { rest03Request, rest03Result } from '../../src/protocol/v03/rest-requests.js';
import { checkValue } from '../../src/protocol/validation.js';
import { setOwn } from '../../src/support/own-property.js';
import { isRecord } from '../../src/support/records.js';

/**
 * A2A 0.3's two wire forms (src/protocol/v03/proto): the JSON of a2a.json that JSON-RPC carries,
 * and the ProtoJSON of the 0.3 proto that HTTP+JSON carries. A 0.3 JSON value becomes a valid
 * ProtoJSON value (save the formats the proto's types add) and comes back as itself once the
 * documented losses (docs/spec-policy.md 10.5) are taken out; a ProtoJSON value the JSON form
 * can hold becomes valid JSON, and after one round, which writes proto3's implicit defaults
 * out, further rounds change nothing.
 */

const RUNS = Number(process.env['FC_RUNS'] ?? 150);
const SEED = process.env['FC_SEED'] === undefined ? undefined : Number(process.env['FC_SEED']);
const params = { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }) };

type Json = unknown;

/** Per kind of JSON object: the members ProtoJSON cannot hold, and the optional strings whose empty value ProtoJSON cannot tell from absent. */
const LOSSES: Readonly<Record<string, { readonly lost?: readonly string[]; readonly emptyIsAbsent?: readonly string[] }>> = {
  part: { lost: ['metadata'] },
  file: { lost: ['name'] },
  message: { lost: ['referenceTaskIds'], emptyIsAbsent: ['contextId', 'taskId'] },
  artifact: { emptyIsAbsent: ['name', 'description'] },
  card: { lost: ['iconUrl'], emptyIsAbsent: ['documentationUrl', 'preferredTransport'] },
  capabilities: { lost: ['stateTransitionHistory'] },
  push: { emptyIsAbsent: ['id', 'token'] },
  authentication: { emptyIsAbsent: ['credentials'] },
  flow: { emptyIsAbsent: ['refreshUrl'] },
};

const FLOWS = ['authorizationCode', 'clientCredentials', 'implicit', 'password'];
const ITEM_KINDS: Readonly<Record<string, string>> = { history: 'message', artifacts: 'artifact' };
const MEMBER_KINDS: Readonly<Record<string, string>> = {
  file: 'file',
  artifact: 'artifact',
  pushNotificationConfig: 'push',
  authentication: 'authentication',
  capabilities: 'capabilities',
  flows: 'flows',
  ...Object.fromEntries(FLOWS.map((flow) => [flow, 'flow'])),
};

function kindOf(node: Record<string, Json>, key: string | undefined): string | undefined {
  if (node['kind'] === 'message' || node['kind'] === 'task') return node['kind'];
  if (node['kind'] === 'text' || node['kind'] === 'file' || node['kind'] === 'data') return 'part';
  if (typeof node['protocolVersion'] === 'string' && 'skills' in node) return 'card';
  return key;
}

/** What of a 0.3 JSON value must survive JSON → ProtoJSON → JSON: the value without its documented losses. */
function lossless03(value: Json, rootKind?: string): Json {
  const walk = (node: Json, key?: string): Json => {
    if (Array.isArray(node)) return node.map((item) => walk(item, key === undefined ? undefined : ITEM_KINDS[key]));
    if (!isRecord(node)) return node;
    const kind = kindOf(node, key);
    const { lost = [], emptyIsAbsent = [] } = (kind === undefined ? undefined : LOSSES[kind]) ?? {};
    const out: Record<string, Json> = {};
    for (const [name, member] of Object.entries(node)) {
      if (lost.includes(name) || (member === '' && emptyIsAbsent.includes(name))) continue;
      setOwn(out, name, walk(member, MEMBER_KINDS[name] ?? (name === 'message' ? 'message' : name)));
    }
    if (kind === 'flows') {
      const first = FLOWS.find((flow) => flow in out);
      return first === undefined ? {} : { [first]: out[first] };
    }
    if (key === 'configuration' && !('blocking' in out)) out['blocking'] = true; // the 0.3 default, written out
    return out;
  };
  return walk(value, rootKind);
}

/** FieldViolation reasons of value constraints the proto's types add to what a2a.json allows (Timestamp, bytes, URLs). */
const STRICTER_IN_PROTO = new Set(['INVALID_FORMAT', 'OUT_OF_RANGE', 'TOO_SHORT', 'TOO_FEW_ITEMS']);

interface Pair {
  readonly name: string;
  readonly def03: string;
  readonly defProto: string;
  readonly toProto: (value: never) => unknown;
  readonly fromProto: (value: never) => unknown;
  readonly root?: string;
  /** Makes a generated ProtoJSON value one the JSON form can hold more often (a resource name of the right form). */
  readonly prepareProto?: (value: Record<string, Json>) => Json;
}

const PAIRS: Pair[] = [
  {
    name: 'Part',
    def03: 'Part',
    defProto: 'Part',
    toProto: partToProto,
    fromProto: (part: never) => partFromProto(part, 'part'),
    root: 'part',
  },
  {
    name: 'Message',
    def03: 'Message',
    defProto: 'Message',
    toProto: messageToProto,
    fromProto: (message: never) => messageFromProto(message, 'm'),
  },
  {
    name: 'TaskStatus',
    def03: 'TaskStatus',
    defProto: 'TaskStatus',
    toProto: statusToProto,
    fromProto: (status: never) => statusFromProto(status, 's'),
  },
  {
    name: 'Artifact',
    def03: 'Artifact',
    defProto: 'Artifact',
    toProto: artifactToProto,
    fromProto: (artifact: never) => artifactFromProto(artifact, 'a'),
    root: 'artifact',
  },
  { name: 'Task', def03: 'Task', defProto: 'Task', toProto: taskToProto, fromProto: (task: never) => taskFromProto(task, 't') },
  {
    name: 'send results',
    def03: 'SendMessageResult',
    defProto: 'SendMessageResponse',
    toProto: sendResultToProto,
    fromProto: sendResultFromProto,
  },
  {
    name: 'stream events',
    def03: 'SendStreamingMessageResult',
    defProto: 'StreamResponse',
    toProto: streamEventToProto,
    fromProto: streamEventFromProto,
  },
  {
    name: 'push configs',
    def03: 'TaskPushNotificationConfig',
    defProto: 'TaskPushNotificationConfig',
    toProto: taskPushConfigToProto,
    fromProto: (config: never) => taskPushConfigFromProto(config, 'config'),
    prepareProto: (config) => ({ ...config, name: 'tasks/t1/pushNotificationConfigs/c1' }),
  },
  {
    name: 'send params',
    def03: 'MessageSendParams',
    defProto: 'SendMessageRequest',
    toProto: sendParamsToProto,
    fromProto: sendParamsFromProto,
  },
  { name: 'agent cards', def03: 'AgentCard', defProto: 'AgentCard', toProto: agentCardToProto, fromProto: agentCardFromProto },
];

const exact = (family: 'json' | 'proto', def: string, value: Json) => {
  const checked =
    family === 'json'
      ? checkValue(A2A_0_3, def as never, value, { flavour: 'exact' })
      : checkValue(A2A_0_3_REST, def as never, value, { flavour: 'exact' });
  return checked.ok ? [] : checked.violations;
};

/** Runs a translation, answering undefined where it refuses the value as untranslatable. */
function attempt(translate: () => unknown): unknown {
  try {
    return translate();
  } catch (error) {
    if (error instanceof UntranslatableError) return undefined;
    throw error;
  }
}

describe('A2A 0.3 JSON ↔ ProtoJSON (src/protocol/v03/proto)', () => {
  it.each(PAIRS)('$name: a 0.3 JSON value becomes valid ProtoJSON and comes back as itself, less the documented losses', (pair) => {
    fc.assert(
      fc.property(arbitraryFor(A2A_0_3.document, pair.def03), (value) => {
        expect(exact('json', pair.def03, value)).toEqual([]);
        const proto = pair.toProto(value as never);
        const structural = exact('proto', pair.defProto, proto).filter((violation) => !STRICTER_IN_PROTO.has(violation.reason ?? ''));
        expect(structural).toEqual([]);
        const back = attempt(() => pair.fromProto(proto as never));
        // The JSON form allows what ProtoJSON's reader then refuses only where a required string is empty.
        fc.pre(back !== undefined);
        expect(back).toEqual(lossless03(value, pair.root));
      }),
      params,
    );
  });

  it.each(PAIRS)(
    '$name: a ProtoJSON value the JSON form can hold becomes valid 0.3 JSON, and what it keeps survives every further round',
    (pair) => {
      let translated = 0;
      fc.assert(
        fc.property(arbitraryFor(A2A_0_3_REST.document, pair.defProto), (generated) => {
          const proto = pair.prepareProto !== undefined && isRecord(generated) ? pair.prepareProto(generated) : generated;
          const value = attempt(() => pair.fromProto(proto as never));
          if (value === undefined) return;
          translated += 1;
          expect(exact('json', pair.def03, value)).toEqual([]);
          const back = pair.toProto(value as never);
          expect(back).toEqual(pair.toProto(pair.fromProto(back as never) as never));
        }),
        params,
      );
      expect(translated, 'generated values the JSON form could hold').toBeGreaterThan(0);
    },
  );

  it.each([
    ['a part', () => partFromProto({} as never, 'p'), 'p'],
    ['a message without an id', () => messageFromProto({ role: 'ROLE_USER', content: [{ text: 'x' }] }, 'm'), 'm.messageId'],
    ['a message without parts', () => messageFromProto({ messageId: 'm1', role: 'ROLE_USER', content: [] }, 'm'), 'm.content'],
    ['a send without a message', () => sendParamsFromProto({} as never), 'message'],
    [
      'a push config without a url',
      () => taskPushConfigFromProto({ name: 'tasks/t/pushNotificationConfigs/c', pushNotificationConfig: {} }, 'c'),
      'c.pushNotificationConfig.url',
    ],
    [
      'a push config naming another task',
      () =>
        taskPushConfigFromProto(
          { name: 'tasks/a/pushNotificationConfigs/c', pushNotificationConfig: { url: 'https://h.example' } },
          'c',
          'b',
        ),
      'c.name',
    ],
  ] as const)('%s the JSON form cannot hold is refused naming the field', (_name, translate, field) => {
    expect(translate).toThrow(UntranslatableError);
    try {
      translate();
    } catch (error) {
      expect((error as UntranslatableError).path).toBe(field);
    }
  });

  it('the documented losses are lost, and only those', () => {
    const message: V03.Message = {
      kind: 'message',
      messageId: 'm1',
      role: 'user',
      referenceTaskIds: ['t0'],
      parts: [
        { kind: 'text', text: 'x', metadata: { lost: true } },
        { kind: 'file', file: { uri: 'https://f.example/a', name: 'a.txt', mimeType: 'text/plain' } },
      ],
    };
    expect(messageFromProto(messageToProto(message), 'm')).toEqual({
      kind: 'message',
      messageId: 'm1',
      role: 'user',
      parts: [
        { kind: 'text', text: 'x' },
        { kind: 'file', file: { uri: 'https://f.example/a', mimeType: 'text/plain' } },
      ],
    });
    // A send's configuration without blocking is the 0.3 default (blocking) in both forms; ProtoJSON's absent bool is false.
    expect(sendParamsToProto({ message, configuration: {} }).configuration).toEqual({ blocking: true });
    expect(sendParamsFromProto({ message: messageToProto(message), configuration: {} }).configuration).toEqual({ blocking: false });
    expect(sendParamsFromProto({ message: messageToProto(message) }).configuration).toBeUndefined();
    // `unknown` is the enum's zero value, which ProtoJSON leaves out; 0.3's canceled is the proto's CANCELLED.
    expect(statusToProto({ state: 'unknown' })).toEqual({});
    expect(statusToProto({ state: 'canceled' })).toEqual({ state: 'TASK_STATE_CANCELLED' });
    expect(statusFromProto({}, 's')).toEqual({ state: 'unknown' });
  });
});

describe('push-config resource names in answers (src/protocol/v03/rest-requests.ts)', () => {
  const name = 'tasks/a/pushNotificationConfigs/b/pushNotificationConfigs/c';
  const answer = { name, pushNotificationConfig: { id: 'c', url: 'https://hooks.example.test/a2a' } };

  it('reads a name against the task the request named, so a task id holding the literal reads back whole', () => {
    const request = rest03Request('tasks/pushNotificationConfig/get', { id: 'a/pushNotificationConfigs/b', pushNotificationConfigId: 'c' });
    expect(request.taskId).toBe('a/pushNotificationConfigs/b');
    expect(rest03Result('tasks/pushNotificationConfig/get', answer, request.taskId)).toEqual({
      ok: true,
      value: { taskId: 'a/pushNotificationConfigs/b', pushNotificationConfig: { id: 'c', url: 'https://hooks.example.test/a2a' } },
    });
  });

  it('without it, the first literal ends the task id, and the name then contradicts the config id', () => {
    const read = rest03Result('tasks/pushNotificationConfig/get', answer);
    expect(read.ok ? [] : read.violations.map((violation) => violation.field)).toEqual(['result.name']);
  });
});
