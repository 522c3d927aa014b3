import { randomUUID } from 'node:crypto';
import { PROTOCOL_VERSION as VERSION_03 } from '../../generated/a2a/0.3/protocol.js';
import type * as V03 from '../../generated/a2a/0.3/types.js';
import type { Artifact, FieldViolation, Message, TaskState } from '../../generated/a2a/1.0/types.js';
import { DEFAULTS } from '../../generated/hub/defaults.js';
import { GATEWAY_METHOD_BY_NAME, WORKER_STATES, type GatewayMethod } from '../../generated/hub/gateway-methods.js';
import type {
  CompleteTaskParams,
  GatewayArtifact,
  GatewayListTasksParams,
  GatewayStatusMessage,
  UpdateStatusParams,
} from '../../generated/hub/types.js';
import type { A2AError } from '../protocol/a2a-error.js';
import { A2A_0_3, A2A_1_0 } from '../protocol/a2a-schema.js';
import { HUB } from '../protocol/hub-schema.js';
import { invalidParams } from '../protocol/params.js';
import { projectToSchema } from '../protocol/project.js';
import { messageFrom03 } from '../protocol/v03/messages.js';
import { stateFrom03, stateTo03 } from '../protocol/v03/states.js';
import { artifactFrom03, taskTo03 } from '../protocol/v03/tasks.js';
import { UntranslatableError } from '../protocol/untranslatable.js';
import { checkValue } from '../protocol/validation.js';
import { withoutUndefined } from '../support/records.js';
import type { ServedVersion } from '../protocol/versions.js';
import { underPrefix } from '../protocol/violations.js';
import type { GatewayAnswer, GatewayCall, GatewayParams } from './gateway-handler.js';
import type { WorkerState } from './hosted-agent.js';

/**
 * Seed 004's gateway methods as a request of either version makes them: the params checked
 * against spec/hub (gateway.schema.json), the A2A values inside them (parts, messages, states)
 * against the request's version and translated to 1.0, and the answer rendered back in that
 * version. Seed 004's own leniencies are kept: an artifact without an artifactId gets one, and a
 * status message may be plain text. Transport-neutral, like the handler.
 */

/** The gateway method `name` (slash name or alias) calls in `version`, if it is one served in that version. */
export function gatewayMethodOf(name: string, version: ServedVersion): GatewayMethod | undefined {
  const method = GATEWAY_METHOD_BY_NAME.get(name);
  return method !== undefined && method.versions.includes(version) ? method : undefined;
}

type Resolved = { readonly ok: true; readonly value: GatewayCall } | { readonly ok: false; readonly error: A2AError };

/**
 * The call a request makes, or InvalidParams naming each field. `exact` refuses members the
 * params def does not know, for telling which version a request without A2A-Version means.
 */
export function resolveGatewayCall(
  method: GatewayMethod,
  raw: unknown,
  version: ServedVersion,
  fieldPrefix: string,
  { exact = false }: { readonly exact?: boolean } = {},
): Resolved {
  if (raw === undefined && !method.paramsOptional) {
    return {
      ok: false,
      error: invalidParams([{ field: fieldPrefix, description: 'is required' }], `${method.name} needs params (a ${method.paramsType})`),
    };
  }
  const checked = checkValue(HUB, method.paramsType as 'CompleteTaskParams', raw ?? {}, {
    fieldPrefix,
    flavour: exact ? 'exact' : 'input',
  });
  if (!checked.ok) return { ok: false, error: invalidParams(checked.violations) };
  const params = projectToSchema(HUB.document, method.paramsType, checked.value);
  const reader = new VersionedReader(version, fieldPrefix);
  const call = READERS[method.name](params as never, reader);
  return reader.violations.length > 0 ? { ok: false, error: invalidParams(reader.violations) } : { ok: true, value: call };
}

/** The answer as the request's version shapes it: tasks as 0.3 Tasks for a 0.3 request. */
export function gatewayAnswerIn(answer: GatewayAnswer, version: ServedVersion): unknown {
  const task = version === VERSION_03 ? taskTo03 : <T>(value: T): T => value;
  if (answer.method === 'task') return task(answer.task);
  return { ...answer.page, tasks: answer.page.tasks.map(task) };
}

/** One reader per method, over its checked params; a method added to the table does not compile until it has one. */
const READERS: { readonly [M in GatewayCall['method']]: (params: never, reader: VersionedReader) => GatewayCall & { method: M } } = {
  'tasks/list': (params: GatewayListTasksParams, reader) => ({
    method: 'tasks/list',
    params: withoutUndefined({
      limit: params.limit ?? DEFAULTS.GatewayListTasksParams.limit,
      offset: params.offset ?? DEFAULTS.GatewayListTasksParams.offset,
      contextId: params.contextId,
      state: params.state === undefined ? undefined : reader.state(params.state, 'state'),
      historyLength: params.historyLength,
    }),
  }),
  'tasks/complete': (params: CompleteTaskParams, reader) => ({
    method: 'tasks/complete',
    params: withoutUndefined({
      id: params.id,
      assignmentId: params.assignmentId,
      artifacts: (params.artifacts ?? []).flatMap((artifact, index) => reader.artifact(artifact, `artifacts[${index}]`) ?? []),
      message: params.message === undefined ? undefined : reader.message(params.message, 'message'),
    }),
  }),
  'tasks/updateStatus': (params: UpdateStatusParams, reader) => ({
    method: 'tasks/updateStatus',
    params: withoutUndefined({
      id: params.id,
      assignmentId: params.assignmentId,
      state: reader.workerState(params.status.state, 'status.state'),
      message: params.status.message === undefined ? undefined : reader.message(params.status.message, 'status.message'),
    }) as GatewayParams['tasks/updateStatus'],
  }),
};

/** Reads the A2A values of gateway params in the request's version, collecting violations with their field paths. */
class VersionedReader {
  readonly violations: FieldViolation[] = [];

  constructor(
    private readonly version: ServedVersion,
    private readonly fieldPrefix: string,
  ) {}

  state(name: string, path: string): TaskState | undefined {
    const field = this.#field(path);
    if (this.version !== VERSION_03) {
      const checked = checkValue(A2A_1_0, 'TaskState', name, { fieldPrefix: field });
      return checked.ok ? checked.value : this.#refuse(checked.violations);
    }
    const checked = checkValue(A2A_0_3, 'TaskState', name, { fieldPrefix: field });
    if (!checked.ok) return this.#refuse(checked.violations);
    return this.#translated(() => stateFrom03(checked.value, path));
  }

  workerState(name: string, path: string): WorkerState | undefined {
    const state = this.state(name, path);
    if (state === undefined) return undefined;
    if ((WORKER_STATES as readonly string[]).includes(state)) return state as WorkerState;
    const allowed = WORKER_STATES.map((entry) => (this.version === VERSION_03 ? stateTo03(entry) : entry)).join(', ');
    return this.#refuse([
      {
        field: this.#field(path),
        description: `must be one of ${allowed}: a worker completes a task with CompleteTask, and only a client cancels one`,
      },
    ]);
  }

  artifact(given: GatewayArtifact, path: string): Artifact | undefined {
    const artifact = { ...given, artifactId: given.artifactId ?? randomUUID() };
    if (this.version !== VERSION_03) return this.#checked10('Artifact', artifact, path);
    const checked = checkValue(A2A_0_3, 'Artifact', artifact, { fieldPrefix: this.#field(path) });
    if (!checked.ok) return this.#refuse(checked.violations);
    const translated = this.#translated(() => artifactFrom03(projectToSchema(A2A_0_3.document, 'Artifact', checked.value)));
    return translated === undefined ? undefined : this.#checked10('Artifact', translated, path);
  }

  /** Plain text is the agent's message with one text part; a Message must be the agent's. */
  message(given: GatewayStatusMessage, path: string): Message | undefined {
    if (typeof given === 'string') return { messageId: randomUUID(), role: 'ROLE_AGENT', parts: [{ text: given }] };
    let message: Message | undefined;
    if (this.version === VERSION_03) {
      const checked = checkValue(A2A_0_3, 'Message', given, { fieldPrefix: this.#field(path) });
      if (!checked.ok) return this.#refuse(checked.violations);
      message = this.#translated(() => messageFrom03(projectToSchema<V03.Message>(A2A_0_3.document, 'Message', checked.value)));
    } else message = this.#checked10('Message', given, path);
    if (message === undefined || message.role === 'ROLE_AGENT') return message;
    const agent = this.version === VERSION_03 ? 'agent' : 'ROLE_AGENT';
    return this.#refuse([{ field: this.#field(`${path}.role`), description: `must be ${agent}: the worker speaks for the agent` }]);
  }

  #checked10<K extends 'Artifact' | 'Message'>(def: K, value: unknown, path: string) {
    const checked = checkValue(A2A_1_0, def, value, { fieldPrefix: this.#field(path) });
    return checked.ok ? projectToSchema(A2A_1_0.document, def, checked.value) : this.#refuse(checked.violations);
  }

  #translated<T>(translate: () => T): T | undefined {
    try {
      return translate();
    } catch (error) {
      if (!(error instanceof UntranslatableError)) throw error;
      return this.#refuse([{ field: this.#field(error.path), description: error.message.slice(error.path.length + 2) }]);
    }
  }

  #field(path: string): string {
    return underPrefix(this.fieldPrefix, path);
  }

  #refuse(violations: readonly FieldViolation[]): undefined {
    this.violations.push(...violations);
    return undefined;
  }
}
