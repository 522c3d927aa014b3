import type { LookupFunction } from 'node:net';
import { randomUUID } from 'node:crypto';
import type {
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  Task,
  TaskPushNotificationConfig,
} from '../../generated/a2a/1.0/types.js';
import type { UrlPolicy } from '../net/destination-policy.js';
import { a2aError, type A2AError } from '../protocol/a2a-error.js';
import { invalidParams } from '../protocol/params.js';
import type { PushConfigs, StoredPushConfig } from '../store/push-store.js';
import type { StoreOp } from '../store/store-ops.js';
import type { BatchWrites } from '../store/task-store.js';
import { configViolations, destinationViolation } from './push-config-rules.js';
import { decodePageToken, encodePageToken } from './push-config-pages.js';
import { resolvePushSettings, type ResolvedPushSettings } from './push-settings.js';
import { configIdentity, type PushSecrets, type SecretSealer } from './sealed-secrets.js';
import { generateSigningSecret } from './signature.js';

/** Whose call this is: a task is found only under its own instance and tenant. */
export interface PushScope {
  readonly instanceId: string;
  /** '' for none. */
  readonly tenant: string;
}

/** Reads a task the caller may see; throws TaskNotFoundError for any other (the task runtime's getTask). */
export interface TaskLookup {
  getTask(instanceId: string, taskId: string, read: { readonly tenant: string; readonly historyLength?: number }): Promise<Task>;
}

/** Registrations are written as store ops, the form the task runtime writes an inline one in. */
export type PushConfigStore = BatchWrites &
  Pick<PushConfigs, 'getPushConfig' | 'listPushConfigs' | 'countPushConfigs' | 'deletePushConfig'>;

export interface PushConfigDeps {
  readonly store: PushConfigStore;
  readonly tasks: TaskLookup;
  readonly sealer: SecretSealer;
  /** The cap and the destination policy; the schema's defaults without it. */
  readonly settings?: Pick<ResolvedPushSettings, 'maxConfigsPerTask' | 'policy'>;
  readonly now: () => string;
  /**
   * Called once a registration (and its first delivery) is committed: the config's pending
   * deliveries, which a replaced failing config may have left waiting for a probe, become due
   * now, and the delivery machinery wakes (PushDispatcher.retryNow).
   */
  readonly retryNow?: (taskId: string, configId: string) => Promise<void>;
  /** The resolver a config's host is checked with at registration (default: node:dns lookup). */
  readonly lookup?: LookupFunction;
}

/** A registered config as the caller may see it, and its signing secret, which goes out once (WEBHOOK_SECRET_HEADER). */
export interface Registration {
  readonly config: TaskPushNotificationConfig;
  readonly signingSecret: string;
}

/**
 * An inline config (SendMessage's configuration.taskPushNotificationConfig), checked before
 * any task exists and registered by the task runtime in the same write as the task it
 * creates or continues.
 */
export interface InlineRegistration {
  readonly signingSecret: string;
  /** Whether opsFor was called: the send made or continued a task (a direct reply or a resend registers nothing). */
  readonly registered: boolean;
  /** Refuses (InvalidParams) a continued task that has as many configs as it may; call before opsFor. */
  requireRoom(taskId: string): Promise<void>;
  /** The writes that register the config on this task, with `snapshot` as its first delivery. */
  opsFor(taskId: string, snapshot: Task): StoreOp[];
  /** Call once those writes are committed. */
  committed(): void;
}

/**
 * The push-config methods over the store, independent of any binding: who may touch which
 * task, validation, the per-task cap, sealing the secrets and leaving them out of every answer.
 * Registering a config also queues the Task snapshot as its first delivery, in the same
 * transaction, so the receiver starts from the task's state and every later event follows it.
 */
export class PushConfigService {
  readonly #deps: PushConfigDeps;
  readonly #policy: UrlPolicy;
  readonly #maxPerTask: number;

  constructor(deps: PushConfigDeps) {
    this.#deps = deps;
    const settings = deps.settings ?? resolvePushSettings();
    this.#policy = settings.policy;
    this.#maxPerTask = settings.maxConfigsPerTask;
  }

  async create(scope: PushScope, request: TaskPushNotificationConfig): Promise<Registration> {
    const taskId = request.taskId ?? '';
    const violations = configViolations(request, this.#policy, '');
    if (taskId === '')
      violations.unshift({ field: 'taskId', description: 'is required: the id of the task the config is for', reason: 'REQUIRED' });
    if (violations.length > 0) throw invalidParams(violations, 'invalid push notification config');
    await this.#deps.tasks.getTask(scope.instanceId, taskId, { tenant: scope.tenant });
    await this.screenDestination(request, '');
    // Read again after the lookup: the task may have moved on while it ran.
    const task = await this.#deps.tasks.getTask(scope.instanceId, taskId, { tenant: scope.tenant });
    const signingSecret = generateSigningSecret();
    const stored = this.#stored(taskId, request, signingSecret);
    await this.#requireRoom(taskId, stored.id, 'taskId');
    const [outcome] = await this.#deps.store.commit([registrationOps(stored, task)]);
    if (outcome?.ok !== true) throw new Error(`the push notification config could not be stored: ${outcome?.error ?? 'no outcome'}`);
    await this.#deps.retryNow?.(taskId, stored.id);
    return { config: stored.config, signingSecret };
  }

  /**
   * Resolves the config's host and refuses it (InvalidParams naming `url` under `prefix`) when an
   * address it has now is one the destination policy refuses. Call once the config passed the
   * other checks. A name that does not resolve passes: DNS can change, and every delivery is
   * checked again when it connects.
   */
  async screenDestination(request: TaskPushNotificationConfig, prefix: string): Promise<void> {
    const violation = await destinationViolation(request, this.#policy, prefix, this.#deps.lookup ? { lookup: this.#deps.lookup } : {});
    if (violation !== undefined) throw invalidParams([violation], 'invalid push notification config');
  }

  /**
   * Checks an inline config as Create would, naming fields under `prefix`; nothing is stored
   * until the runtime writes what opsFor gives.
   */
  prepareInline(
    request: TaskPushNotificationConfig,
    prefix: string,
    target: { readonly taskId?: string; readonly tenant: string },
  ): InlineRegistration {
    const violations = configViolations(request, this.#policy, prefix);
    const givenTask = request.taskId ?? '';
    if (givenTask !== '' && givenTask !== (target.taskId ?? ''))
      violations.push({
        field: `${prefix}.taskId`,
        description:
          target.taskId === undefined || target.taskId === ''
            ? 'must be left out: the config is for the task this message creates'
            : `must be left out or be ${target.taskId}, the task this message continues`,
        reason: 'INVALID_VALUE',
      });
    if (request.tenant !== undefined && request.tenant !== '' && request.tenant !== target.tenant)
      violations.push({
        field: `${prefix}.tenant`,
        description: 'must be left out or be the tenant of the request',
        reason: 'INVALID_VALUE',
      });
    if (violations.length > 0) throw invalidParams(violations, 'invalid push notification config');
    const signingSecret = generateSigningSecret();
    let registered: StoredPushConfig | undefined;
    return {
      signingSecret,
      get registered() {
        return registered !== undefined;
      },
      requireRoom: (taskId) => this.#requireRoom(taskId, request.id || undefined, 'message.taskId'),
      opsFor: (taskId, snapshot) => {
        const stored = this.#stored(taskId, request, signingSecret);
        registered = stored;
        return registrationOps(stored, snapshot);
      },
      committed: () => {
        if (registered !== undefined) void this.#deps.retryNow?.(registered.taskId, registered.id);
      },
    };
  }

  async get(scope: PushScope, taskId: string, id: string): Promise<TaskPushNotificationConfig> {
    await this.#requireTask(scope, taskId);
    const record = await this.#deps.store.getPushConfig(taskId, id);
    if (record === undefined) throw configNotFound(taskId, id);
    return record.config;
  }

  async list(scope: PushScope, request: ListTaskPushNotificationConfigsRequest): Promise<ListTaskPushNotificationConfigsResponse> {
    const { taskId } = request;
    await this.#requireTask(scope, taskId);
    const offset = request.pageToken ? decodePageToken(request.pageToken, taskId) : 0;
    if (offset === undefined)
      throw invalidParams([
        {
          field: 'pageToken',
          description: 'is not a page token this hub gave for this task; start again without it',
          reason: 'INVALID_VALUE',
        },
      ]);
    const all = await this.#deps.store.listPushConfigs(taskId);
    // 0 is the proto default: no page size given.
    const end = request.pageSize === undefined || request.pageSize === 0 ? all.length : offset + request.pageSize;
    const configs = all.slice(offset, end).map((record) => record.config);
    // Present even when empty (digest ambiguity 11): ProtoJSON would omit it, and clients then cannot tell the last page.
    return { configs, nextPageToken: end < all.length ? encodePageToken(taskId, end) : '' };
  }

  /** Permanent and idempotent: a config that is not there is deleted already. */
  async delete(scope: PushScope, taskId: string, id: string): Promise<void> {
    await this.#requireTask(scope, taskId);
    await this.#deps.store.deletePushConfig(taskId, id);
  }

  async #requireTask(scope: PushScope, taskId: string): Promise<void> {
    await this.#deps.tasks.getTask(scope.instanceId, taskId, { tenant: scope.tenant, historyLength: 0 });
  }

  /** The per-task cap; replacing a config (same id; none: a new id) takes no room. */
  async #requireRoom(taskId: string, id: string | undefined, field: string): Promise<void> {
    const { store } = this.#deps;
    if (id !== undefined && (await store.getPushConfig(taskId, id)) !== undefined) return;
    if ((await store.countPushConfigs(taskId)) < this.#maxPerTask) return;
    throw invalidParams(
      [
        {
          field,
          description: `task ${taskId} has ${this.#maxPerTask} push notification configs, the most this hub takes (push.maxConfigsPerTask); delete one first, or create one again under its id to replace it`,
          reason: 'INVALID_VALUE',
        },
      ],
      'too many push notification configs',
    );
  }

  /** The config as stored: shown without its secrets, which are sealed apart, bound to the config. */
  #stored(taskId: string, request: TaskPushNotificationConfig, signingSecret: string): StoredPushConfig {
    const id = request.id || randomUUID();
    const secrets: PushSecrets = {
      ...(request.token === undefined || request.token === '' ? {} : { token: request.token }),
      ...(request.authentication?.credentials === undefined || request.authentication.credentials === ''
        ? {}
        : { credentials: request.authentication.credentials }),
      signingSecret,
    };
    const config: TaskPushNotificationConfig = {
      id,
      taskId,
      url: request.url,
      ...(request.authentication === undefined ? {} : { authentication: { scheme: request.authentication.scheme } }),
    };
    return { taskId, id, config, secrets: this.#deps.sealer.seal(secrets, configIdentity(taskId, id)), createdAt: this.#deps.now() };
  }
}

/** Stores a config and queues the task as it is now as its first delivery: one write, so the two are never apart. */
function registrationOps(config: StoredPushConfig, snapshot: Task): StoreOp[] {
  return [
    { op: 'putPushConfig', config },
    { op: 'enqueueDelivery', taskId: config.taskId, configId: config.id, frame: { task: snapshot } },
  ];
}

/** The same answer for an unknown config as for an unknown task: both are TaskNotFoundError (spec §3.1.8). */
function configNotFound(taskId: string, id: string): A2AError {
  return a2aError('TaskNotFoundError', `task ${taskId} has no push notification config ${id}`, { metadata: { taskId, configId: id } });
}
