import { TASK_STATES } from '../../generated/a2a/1.0/task-states.js';
import { directiveMessage } from './support/directives.js';
import { A2A_1_0 } from '../../src/protocol/a2a-schema.js';
import { short } from '../core/answers.js';
import type { Check, CheckContext } from '../core/check.js';
import type { Exchange } from '../core/exchange.js';
import type { RpcExchange, StreamExchange } from '../core/transport.js';
import { capabilityDeclared } from './support/card.js';
import { isTaskState } from './support/states.js';
import { unknownTaskId } from './support/tasks.js';
import { skipAll } from './support/verdicts.js';

/** The requirements scanWire reports on. */
export type WireRequirement = 'WIRE-002' | 'WIRE-003' | 'WIRE-004' | 'WIRE-005' | 'DATA-002';

export const WIRE_REQUIREMENTS: readonly WireRequirement[] = ['WIRE-002', 'WIRE-003', 'WIRE-004', 'WIRE-005', 'DATA-002'];

/** One thing scanWire found wrong with a value the agent sent. */
export interface WireFinding {
  readonly requirement: WireRequirement;
  /** `fail` breaks a MUST; `warn` a SHOULD (WIRE-004) or the millisecond-precision advice (DATA-002). */
  readonly severity: 'fail' | 'warn';
  /** JSON path of the offending member, e.g. `result.task.status.state`. */
  readonly path: string;
  readonly message: string;
  readonly expected: string;
  readonly observed: string;
}

const ROLES: ReadonlySet<string> = new Set(enumOf('Role'));

/** Members whose values are free-form JSON (Struct, Value): whatever they hold is the sender's data, not ProtoJSON. */
const FREE_FORM = new Set(['metadata', 'data']);
/** Part content (a oneof): an empty string there is a set member, not a default left in. */
const CONTENT = new Set(['text', 'raw', 'url']);
/** REQUIRED members that are emitted even when empty (spec policy 5.8, 2.10). */
const REQUIRED_EVEN_EMPTY = new Set(['nextPageToken', 'tasks']);
/** Members that carry text or ids of someone's choosing: a date-like or enum-like value there is content. */
const CLIENT_TEXT = new Set([
  'text',
  'raw',
  'url',
  'name',
  'description',
  'filename',
  'mediaType',
  'messageId',
  'id',
  'taskId',
  'contextId',
  'artifactId',
]);
const DATE_LIKE = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}/;
const RFC3339_UTC = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(?:\.(?<fraction>\d{1,9}))?Z$/;

/**
 * Walks any JSON the agent sent (a result, a stream frame, error details) and reports what
 * the 1.0 wire format forbids beyond the schema: a `kind` member (WIRE-002), short or
 * UNSPECIFIED enum values where a state or role is expected (WIRE-003), implicit-presence
 * members left at their default (WIRE-004, a SHOULD), timestamps not in UTC with a `Z`
 * (WIRE-005, DATA-002) and timestamps not at millisecond precision (DATA-002, a warning).
 * Free-form values (`metadata`, `Part.data`) are the sender's own data and are not entered.
 */
export function scanWire(value: unknown, path = ''): WireFinding[] {
  const findings: WireFinding[] = [];
  walk(value, path, findings);
  return findings;
}

function walk(value: unknown, path: string, out: WireFinding[]): void {
  if (Array.isArray(value)) {
    value.forEach((item, index) => walk(item, `${path}[${index}]`, out));
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  for (const [key, member] of Object.entries(value)) {
    const at = path === '' ? key : `${path}.${key}`;
    inspectMember(key, member, at, out);
    if (FREE_FORM.has(key)) continue;
    walk(member, at, out);
  }
}

function inspectMember(key: string, value: unknown, path: string, out: WireFinding[]): void {
  const push = (requirement: WireRequirement, severity: WireFinding['severity'], message: string, expected: string): void => {
    out.push({ requirement, severity, path, message, expected, observed: short(value, 200) });
  };
  if (key === 'kind')
    push(
      'WIRE-002',
      'fail',
      'an object carries a `kind` member (the A2A 0.3 discriminator)',
      'no kind member: oneof alternatives are told apart by which member is present',
    );
  if (key === 'state' && typeof value === 'string' && !isTaskState(value) && !value.endsWith('_UNSPECIFIED')) {
    push('WIRE-003', 'fail', 'a task state is not a full TaskState name', `one of ${Object.keys(TASK_STATES).join(', ')}`);
  }
  if (key === 'role' && typeof value === 'string' && !ROLES.has(value) && !value.endsWith('_UNSPECIFIED')) {
    push('WIRE-003', 'fail', 'a role is not a full Role name', 'ROLE_USER or ROLE_AGENT');
  }
  if (typeof value === 'string' && !CLIENT_TEXT.has(key) && /^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*_UNSPECIFIED$/.test(value)) {
    push('WIRE-003', 'fail', 'a *_UNSPECIFIED enum value was emitted', 'a set enum value, or the member left out');
  }
  if ((key === 'append' || key === 'lastChunk') && value === false) {
    push(
      'WIRE-004',
      'warn',
      `\`${key}: false\` is an implicit-presence default that should be left out`,
      `no ${key} member unless it is true`,
    );
  }
  if (key === 'metadata' && typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0) {
    push('WIRE-004', 'warn', 'an empty `metadata` object should be left out', 'no metadata member when there is none');
  }
  if (Array.isArray(value) && value.length === 0 && !REQUIRED_EVEN_EMPTY.has(key) && key !== 'parts') {
    push('WIRE-004', 'warn', `an empty \`${key}\` array should be left out`, `no ${key} member when it has no elements`);
  }
  if (value === '' && !CONTENT.has(key) && !REQUIRED_EVEN_EMPTY.has(key)) {
    push('WIRE-004', 'warn', `an empty string in \`${key}\` should be left out`, `no ${key} member when it is unset`);
  }
  if (typeof value === 'string' && isTimestampMember(key, value)) timestamp(value, push);
}

function isTimestampMember(key: string, value: string): boolean {
  if (key === 'timestamp' || /[a-z](Timestamp|Time|At)$/.test(key)) return true;
  return !CLIENT_TEXT.has(key) && DATE_LIKE.test(value);
}

function timestamp(
  value: string,
  push: (requirement: WireRequirement, severity: WireFinding['severity'], message: string, expected: string) => void,
): void {
  const expected = 'RFC 3339 in UTC ending in Z, e.g. 2026-05-28T10:30:00.000Z';
  if (!value.endsWith('Z')) {
    const zone = /([+-]\d{2}:?\d{2}|z)$/.exec(value)?.[1];
    const what = zone === undefined ? 'has no Z (no zone, or not a timestamp at all)' : `ends with ${zone} instead of Z`;
    push('WIRE-005', 'fail', `a timestamp ${what}`, expected);
    push('DATA-002', 'fail', `a timestamp ${what}`, expected);
    return;
  }
  const match = RFC3339_UTC.exec(value);
  if (match === null) {
    push('DATA-002', 'fail', 'a timestamp is not an RFC 3339 date-time', expected);
    return;
  }
  const fraction = match.groups?.['fraction'] ?? '';
  if (fraction.length !== 3) {
    push(
      'DATA-002',
      'warn',
      `a timestamp has ${fraction.length === 0 ? 'no fractional seconds' : `${fraction.length} fractional digits`} rather than milliseconds`,
      'three fractional digits (milliseconds)',
    );
  }
}

function enumOf(def: string): string[] {
  const values = A2A_1_0.document.$defs[def]?.['enum'];
  return Array.isArray(values) ? values.filter((value): value is string => typeof value === 'string') : [];
}

interface Scanned {
  readonly findings: WireFinding[];
  readonly exchange: Pick<Exchange, 'request'>;
}

/** Records scanWire findings as verdicts: a few per requirement, PASS for each that stayed clean. */
export function recordWireFindings(context: CheckContext, scans: readonly Scanned[], values: number): void {
  const shownPer = new Map<string, number>();
  const seen = new Set<string>();
  const bad = new Set<string>();
  for (const { findings, exchange } of scans) {
    for (const finding of findings) {
      bad.add(finding.requirement);
      // The same problem tends to repeat in every task and frame: report each kind of it once.
      const key = `${finding.requirement} ${finding.severity} ${finding.message} ${finding.path.replace(/\[\d+\]/g, '[]').replace(/^events\[\]\./, '')}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const count = shownPer.get(finding.requirement) ?? 0;
      if (count >= 5) continue;
      shownPer.set(finding.requirement, count + 1);
      const input = { message: finding.message, expected: finding.expected, observed: finding.observed, path: finding.path, exchange };
      if (finding.severity === 'fail') context.fail(finding.requirement, input);
      else context.warn(finding.requirement, input);
    }
  }
  for (const requirement of WIRE_REQUIREMENTS) {
    if (!bad.has(requirement)) context.pass(requirement, `${values} values the agent sent were scanned`);
  }
}

export const wireChecks: readonly Check[] = [
  {
    id: 'wire-format-scan',
    title: 'What the agent sends: no kind, full enum names, defaults left out, UTC timestamps',
    requirements: [...WIRE_REQUIREMENTS],
    async run(context) {
      const scans: Scanned[] = [];
      let values = 0;
      const scan = (value: unknown, path: string, exchange: Exchange): void => {
        if (value === undefined) return;
        values += 1;
        scans.push({ findings: scanWire(value, path), exchange });
      };
      const scanRpc = (exchange: RpcExchange): void => {
        scan(exchange.result, 'result', exchange);
        scan(exchange.error?.data, 'error.data', exchange);
      };
      // Artifacts in chunks make append and lastChunk appear, where the profile can ask for them.
      const chunked = (text: string, chunks: number) => directiveMessage(context, text, { chunks });

      const sent = await context.transport.call('SendMessage', { message: chunked('conformance wire-format check', 2) });
      scanRpc(sent);
      const result = sent.result as { task?: { id?: unknown; contextId?: unknown }; message?: { contextId?: unknown } } | undefined;
      const taskId = typeof result?.task?.id === 'string' ? result.task.id : undefined;
      const contextId = result?.task?.contextId ?? result?.message?.contextId;
      if (taskId !== undefined) scanRpc(await context.transport.call('GetTask', { id: taskId }));
      scanRpc(
        await context.transport.call('ListTasks', {
          ...(typeof contextId === 'string' && contextId !== '' ? { contextId } : {}),
          includeArtifacts: true,
          pageSize: 10,
        }),
      );
      if (capabilityDeclared(context, 'streaming')) {
        const stream: StreamExchange = await context.transport.stream('SendStreamingMessage', {
          message: chunked('conformance wire-format stream check', 3),
        });
        scan((stream.json as { error?: { data?: unknown } } | undefined)?.error?.data, 'error.data', stream);
        stream.events.forEach((event, index) => {
          scan(event.frame, `events[${index}].result`, stream);
          scan(event.error?.data, `events[${index}].error.data`, stream);
        });
      }
      scanRpc(await context.transport.call('GetTask', { id: unknownTaskId() }));
      if (values === 0) {
        skipAll(context, WIRE_REQUIREMENTS, 'inconclusive', 'no call was answered with anything to scan');
        return;
      }
      recordWireFindings(context, scans, values);
    },
  },
];
