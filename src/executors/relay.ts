import { isInterruptedState } from '../../generated/a2a/1.0/task-states.js';
import type { Message, SendMessageRequest } from '../../generated/a2a/1.0/types.js';
import { runRemoteTurn } from '../client/remote-run.js';
import type { OutboundConnection } from '../outbound/outbound-registry.js';
import type { Awaitable } from '../support/awaitable.js';
import { turnOptionsOf } from '../outbound/turn-options.js';
import type { AgentExecutor, ExecutionEvents, ExecutionRequest } from './executor.js';
import { RemoteTaskMirror } from './relay-mirror.js';

/** Where a relay instance sends its messages, and where it keeps the remote ids of its tasks. */
export interface RelayDeps {
  /** The connected outbound connection the instance relays to, or why there is none. */
  readonly target: (instanceId: string) => OutboundConnection | { readonly unavailable: string };
  /** Durable key/value storage (the store's meta table). */
  readonly get: (key: string) => Awaitable<string | undefined>;
  readonly set: (key: string, value: string) => Awaitable<void>;
  readonly delete: (key: string) => Awaitable<void>;
}

/**
 * Where the remote context of a local conversation is kept. Under a tenant the tenant is part of
 * the key (the same contextId under two tenants is two conversations, hence two remote ones); a
 * conversation under no tenant keeps the key it had before tenants, so stored ones still match.
 */
function relayContextKey({ instanceId, tenant, contextId }: ExecutionRequest): string {
  return tenant === '' ? `relay.context.${instanceId}.${contextId}` : `relay.context.${JSON.stringify([instanceId, tenant, contextId])}`;
}

interface RemoteIds {
  readonly taskId: string;
  readonly contextId: string;
}

/**
 * The `relay` preset's executor: every message sent to the local task goes to the remote agent
 * of one outbound connection, and the local task mirrors the remote one (states, status
 * messages, artifacts, streamed through as they come). The local side keeps what the hub adds:
 * its auth, rate limit, durable tasks and replay. A local cancel aborts the turn, which cancels
 * the remote task. The remote context of each local context, and the remote ids of a task
 * waiting for input, are stored, so that both survive a restart.
 */
export function relayExecutor(deps: RelayDeps): AgentExecutor {
  return {
    async execute(request: ExecutionRequest, events: ExecutionEvents, signal: AbortSignal): Promise<void> {
      const target = deps.target(request.instanceId);
      if ('unavailable' in target) {
        events.fail(`this agent relays to a remote agent that is not available: ${target.unavailable}`);
        return;
      }
      const contextKey = relayContextKey(request);
      const taskKey = `relay.task.${request.instanceId}.${request.taskId}`;
      const earlier = request.resumed ? parseIds(await deps.get(taskKey)) : undefined;
      if (request.resumed && earlier === undefined) {
        events.fail('the remote task this task relayed to is not known any more; start a new task');
        return;
      }
      const remoteContextId = earlier?.contextId ?? (await deps.get(contextKey));
      const mirror = new RemoteTaskMirror(events, target.redact, request.task.artifacts ?? []);
      const rememberContext = async (contextId: string | undefined): Promise<void> => {
        if (contextId !== undefined && contextId !== '' && contextId !== remoteContextId) await deps.set(contextKey, contextId);
      };
      const outgoing: SendMessageRequest = {
        message: remoteMessage(request.message, earlier?.taskId, remoteContextId),
        ...(request.acceptedOutputModes.length === 0 ? {} : { configuration: { acceptedOutputModes: [...request.acceptedOutputModes] } }),
      };
      const scope = AbortSignal.any([signal, target.signal]);
      try {
        const outcome = await runRemoteTurn(target.client, outgoing, {
          signal: scope,
          ...turnOptionsOf(target),
          onFrame: (frame) => mirror.frame(frame),
        });
        if (signal.aborted) return;
        if (outcome.task !== undefined) {
          await rememberContext(outcome.task.contextId);
          // Only a task waiting for input or authentication can be continued: keep its remote
          // ids until then, and no longer.
          if (isInterruptedState(outcome.task.status.state))
            await deps.set(taskKey, JSON.stringify({ taskId: outcome.task.id, contextId: outcome.task.contextId }));
          else if (earlier !== undefined) await deps.delete(taskKey);
          mirror.settle(outcome.task);
        } else if (outcome.message !== undefined) {
          await rememberContext(outcome.message.contextId);
          // Before any task event this answers the client with a Message too; after, it completes the task.
          events.reply(outcome.message.parts);
        }
      } catch (error) {
        // A local cancel has already settled the task; the turn's rejection is its echo.
        if (signal.aborted) return;
        events.fail(`the remote agent could not be used: ${target.redact(error instanceof Error ? error.message : String(error))}`);
      }
    },
  };
}

/** The local message as the remote should get it: its own id, the remote's task and context. */
function remoteMessage(local: Message, remoteTaskId: string | undefined, remoteContextId: string | undefined): Message {
  const { taskId: _taskId, contextId: _contextId, ...rest } = local;
  void _taskId;
  void _contextId;
  return {
    ...rest,
    ...(remoteTaskId === undefined ? {} : { taskId: remoteTaskId }),
    ...(remoteContextId === undefined ? {} : { contextId: remoteContextId }),
  };
}

function parseIds(stored: string | undefined): RemoteIds | undefined {
  if (stored === undefined) return undefined;
  try {
    const ids = JSON.parse(stored) as Partial<RemoteIds>;
    return typeof ids.taskId === 'string' && ids.taskId !== '' ? { taskId: ids.taskId, contextId: ids.contextId ?? '' } : undefined;
  } catch {
    return undefined;
  }
}
