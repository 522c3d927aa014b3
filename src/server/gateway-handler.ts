import { asStorageError } from '../tasks/storage-errors.js';
import { requireStorable } from './storable-strings.js';
import type { Artifact, Message, Task, TaskState } from '../../generated/a2a/1.0/types.js';
import type { GatewayMethodName } from '../../generated/hub/gateway-methods.js';
import { a2aError } from '../protocol/a2a-error.js';
import type { TaskReads } from '../store/task-store.js';
import type { TaskRuntime } from '../tasks/task-runtime.js';
import type { CallContext } from './a2a-handler.js';
import type { HostedAgent, WorkerPort, WorkerState } from './hosted-agent.js';

/**
 * Seed 004's gateway methods (spec/hub/gateway-methods.json) over A2A 1.0 values, with no
 * knowledge of any binding or version: src/server/gateway-calls.ts reads them from a request
 * of either version and renders the answer back in it.
 */
/** Each method's params as 1.0 values; a method added to the table does not compile until it has an entry here. */
export interface GatewayParams extends Record<GatewayMethodName, unknown> {
  readonly 'tasks/list': GatewayListQuery;
  readonly 'tasks/complete': {
    readonly id: string;
    readonly assignmentId?: string;
    readonly artifacts: readonly Artifact[];
    readonly message?: Message;
  };
  readonly 'tasks/updateStatus': {
    readonly id: string;
    readonly assignmentId?: string;
    readonly state: WorkerState;
    readonly message?: Message;
  };
}

export type GatewayCall = { [M in GatewayMethodName]: { readonly method: M; readonly params: GatewayParams[M] } }[GatewayMethodName];

export interface GatewayListQuery {
  readonly limit: number;
  readonly offset: number;
  readonly contextId?: string;
  readonly state?: TaskState;
  readonly historyLength?: number;
}

export interface GatewayListPage {
  readonly tasks: Task[];
  readonly total: number;
  readonly limit: number;
  readonly offset: number;
}

export type GatewayAnswer =
  { readonly method: 'tasks/list'; readonly page: GatewayListPage } | { readonly method: 'task'; readonly task: Task };

export class GatewayHandler {
  constructor(
    private readonly runtime: TaskRuntime,
    private readonly store: TaskReads,
  ) {}

  async call(call: GatewayCall, context: CallContext): Promise<GatewayAnswer> {
    requireStorable(call.params);
    try {
      return await this.#call(call, context);
    } catch (error) {
      throw asStorageError(error, `${call.method} could not be served`);
    }
  }

  async #call(call: GatewayCall, context: CallContext): Promise<GatewayAnswer> {
    switch (call.method) {
      case 'tasks/list':
        return { method: 'tasks/list', page: await this.#list(call.params, context) };
      case 'tasks/complete': {
        const { id, assignmentId } = call.params;
        workerOf(call.method, context.agent).complete(id, call.params, { assignmentId });
        return { method: 'task', task: await this.#task(id, context) };
      }
      case 'tasks/updateStatus': {
        const { id, assignmentId, state, message } = call.params;
        workerOf(call.method, context.agent).update(id, state, message, { assignmentId });
        return { method: 'task', task: await this.#task(id, context) };
      }
    }
  }

  /** The caller's tasks (those under no tenant: 0.3 has none) by offset, newest status first, as the control API's table reads them. */
  async #list(query: GatewayListQuery, context: CallContext): Promise<GatewayListPage> {
    const { rows, total } = await this.store.browseTasks({
      instanceId: context.agent.id,
      tenant: '',
      limit: query.limit,
      offset: query.offset,
      ...(query.contextId === undefined ? {} : { contextId: query.contextId }),
      ...(query.state === undefined ? {} : { state: query.state }),
    });
    const view = query.historyLength === undefined ? {} : { historyLength: query.historyLength };
    const read = await Promise.all(rows.map(async (row) => this.store.getTask(context.agent.id, row.id, { tenant: '', ...view })));
    const tasks = read.filter((task) => task !== undefined);
    return { tasks, total, limit: query.limit, offset: query.offset };
  }

  /** The task as the worker's report left it, under its own tenant. */
  async #task(taskId: string, context: CallContext): Promise<Task> {
    const info = await this.store.getTaskInfo(taskId);
    return this.runtime.getTask(context.agent.id, taskId, { tenant: info?.tenant ?? '' });
  }
}

/** The worker side of the agent a worker method was called on; -32601 for an agent not on the worker preset. */
export function workerOf(method: string, agent: HostedAgent): WorkerPort {
  const worker = agent.worker;
  if (worker !== undefined) return worker;
  throw a2aError('MethodNotFoundError', `${method} is called by the worker of an agent on the worker preset; this agent is not one`, {
    metadata: { method },
  });
}
