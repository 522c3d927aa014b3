import { prunes } from '../store/retention.js';
import { randomUUID } from 'node:crypto';
import { WELL_KNOWN_AGENT_CARD_PATH } from '../../generated/a2a/1.0/protocol.js';
import { isTerminalState } from '../../generated/a2a/1.0/task-states.js';
import type { ControlActionName, ControlActionTypes } from '../../generated/control/api.js';
import type { ActionSuccess } from '../../generated/control/types.js';
import type { ConnectOutcome, OutboundRegistry } from '../outbound/outbound-registry.js';
import { isA2AError } from '../protocol/a2a-error.js';
import { OperationError } from '../support/operation-error.js';
import type { ControlDeps } from './control-deps.js';
import type { RequestConnection } from './peers.js';
import { PUSH_ACTION_HANDLERS } from './push-actions.js';

type Handler<A extends ControlActionName> = (
  action: ControlActionTypes[A],
  deps: ControlDeps,
  connection: RequestConnection,
) => Promise<ActionSuccess> | ActionSuccess;

const done = (message: string, extra: Omit<ActionSuccess, 'ok' | 'message'> = {}): ActionSuccess => ({ ok: true, message, ...extra });

/**
 * One handler per control action. Each either succeeds with a message a person can read, or
 * throws an OperationError whose message says what went wrong and what to do; the router
 * turns that into 409.
 */
export const ACTION_HANDLERS: { readonly [A in ControlActionName]: Handler<A> } = {
  'inbound.create': async (action, { inbounds }) => {
    const { action: _action, ...input } = action;
    void _action;
    const created = await inbounds.create(input);
    return done(`inbound server "${created.name}" created`, { id: created.id });
  },
  'inbound.update': async (action, { inbounds }) => {
    const { action: _action, id, ...patch } = action;
    void _action;
    const updated = await inbounds.update(id, patch);
    return done(`inbound server "${updated.name}" updated`, { id });
  },
  'inbound.remove': async (action, { inbounds, peers }, connection) => {
    const name = inbounds.get(action.id)?.name ?? action.id;
    await inbounds.remove(action.id);
    const closed = peers.closeInstance(action.id, connection);
    const wellKnown = inbounds.wellKnownInstance === action.id ? `; ${WELL_KNOWN_AGENT_CARD_PATH} answers 404 now (wellKnownInstance)` : '';
    return done(
      `inbound server "${name}" removed${closed > 0 ? `; ${closed} connected peer${closed === 1 ? '' : 's'} disconnected` : ''}${wellKnown}`,
      { id: action.id },
    );
  },
  'inbound.enable': async (action, { inbounds }) =>
    done(`inbound server "${(await inbounds.setEnabled(action.id, true)).name}" enabled`, { id: action.id }),
  'inbound.disable': async (action, { inbounds }) =>
    done(`inbound server "${(await inbounds.setEnabled(action.id, false)).name}" disabled`, { id: action.id }),
  'inbound.setAuth': async (action, { inbounds }) => {
    const updated = await inbounds.setAuth(action.id, action.token);
    const on = action.token !== undefined && action.token !== '';
    return done(`bearer auth ${on ? 'enabled' : 'cleared'} for inbound server "${updated.name}"`, { id: action.id });
  },
  'inbound.sendTest': async (action, { inbounds, runtime }) => {
    const agent = inbounds.agent(action.id);
    const unavailable = inbounds.unavailableReason(action.id);
    if (unavailable !== undefined) throw new OperationError(`instance "${action.id}" is unavailable: ${unavailable}`);
    if (agent === undefined) throw new OperationError(`no inbound instance has id "${action.id}"`);
    if (action.skill !== undefined && !agent.skills.includes(action.skill)) {
      throw new OperationError(
        `instance "${action.id}" does not advertise skill "${action.skill}"; its skills: ${agent.skills.join(', ')}`,
      );
    }
    try {
      const outcome = await runtime.send(agent, {
        message: {
          messageId: `control-test-${randomUUID()}`,
          role: 'ROLE_USER',
          parts: [{ text: action.text }],
          ...(action.contextId === undefined ? {} : { contextId: action.contextId }),
          ...(action.skill === undefined ? {} : { metadata: { skill: action.skill } }),
        },
      });
      if (outcome.kind === 'message') {
        return done(`"${agent.name}" answered with a message: ${replyPreview(outcome.message.parts)}`, {
          ...(outcome.message.contextId ? { contextId: outcome.message.contextId } : {}),
        });
      }
      await runtime.settled(outcome.taskId);
      const task = await runtime.getTask(agent.id, outcome.taskId, { historyLength: 0 });
      return done(`test message to "${agent.name}" ended ${task.status.state}`, {
        id: task.id,
        taskId: task.id,
        state: task.status.state,
        ...(task.contextId ? { contextId: task.contextId } : {}),
      });
    } catch (error) {
      if (isA2AError(error)) throw new OperationError(`the test message was refused: ${error.message}`);
      throw error;
    }
  },
  'inbound.close': (action, { peers }, connection) => {
    if (!peers.close(action.id, connection))
      throw new OperationError(`no connected peer has id "${action.id}"; GET /a2a/api lists the peers`);
    return done(`peer ${action.id} disconnected`, { id: action.id });
  },
  'outbound.create': async (action, { outbounds }) => {
    const { action: _action, ...input } = action;
    void _action;
    const created = await outbounds.create(input);
    const state = created.enabled ? `and connected: ${counts(outbounds, created.id)}` : 'disabled; outbound.enable connects it';
    return done(`outbound connection "${created.name}" created ${state}`, { id: created.id });
  },
  'outbound.update': async (action, { outbounds }) => {
    const { action: _action, id, ...patch } = action;
    void _action;
    const { config, outcome } = await outbounds.update(id, patch);
    return done(`outbound connection "${config.name}" updated${outcomeText(outbounds, id, outcome)}`, { id });
  },
  'outbound.remove': async (action, { outbounds }) =>
    done(`outbound connection "${(await outbounds.remove(action.id)).name}" removed with its tools`, { id: action.id }),
  'outbound.enable': async (action, { outbounds }) => {
    const config = await outbounds.setEnabled(action.id, true);
    return done(`outbound connection "${config.name}" enabled and connected: ${counts(outbounds, action.id)}`, { id: action.id });
  },
  'outbound.disable': async (action, { outbounds }) => {
    const config = await outbounds.setEnabled(action.id, false);
    return done(`outbound connection "${config.name}" disabled; its tools are gone until outbound.enable`, { id: action.id });
  },
  'outbound.refresh': async (action, { outbounds }) => {
    const config = await outbounds.refresh(action.id);
    return done(`outbound connection "${config.name}" refreshed: ${counts(outbounds, action.id)}`, { id: action.id });
  },
  'outbound.setAuth': async (action, { outbounds }) => {
    const { config, outcome } = await outbounds.setAuth(action.id, action.token);
    const on = action.token !== undefined && action.token !== '';
    return done(
      `bearer token ${on ? 'set' : 'cleared'} for outbound connection "${config.name}"${outcomeText(outbounds, action.id, outcome)}`,
      { id: action.id },
    );
  },
  'outbound.discover': async (action, { outbounds }) => {
    const preview = await outbounds.discover(action.agentCardUrl, action.token);
    return done(
      `read the agent card of "${preview.name}" ${preview.version}: ${plural(preview.skills.length, 'skill')}; nothing was created`,
      { preview },
    );
  },
  'task.cancel': async (action, { store, runtime }) => {
    const info = await store.getTaskInfo(action.id);
    if (info === undefined) throw new OperationError(`no task has id "${action.id}"`);
    try {
      const task = await runtime.cancel(info.instanceId, info.id, { tenant: info.tenant, reason: 'canceled from the control API' });
      return done(`task ${action.id} canceled`, { id: action.id, taskId: action.id, state: task.status.state });
    } catch (error) {
      if (isA2AError(error)) throw new OperationError(error.message);
      throw error;
    }
  },
  'task.prune': async (action, { inbounds, retention }) => {
    if (action.id !== undefined) {
      const config = inbounds.get(action.id);
      if (config === undefined) throw new OperationError(`no inbound server has id "${action.id}"`);
      if (!prunes(config.retention))
        throw new OperationError(
          `inbound server "${config.name}" keeps every task: give it a retention (inbound.update with retention) first`,
        );
    }
    const pruned = await retention.sweep(action.id);
    const scope = action.id === undefined ? 'by every retention' : `of inbound server "${inbounds.get(action.id)?.name ?? action.id}"`;
    return done(`${pruned} terminal task${pruned === 1 ? '' : 's'} pruned ${scope}`, { pruned });
  },
  'session.cancel': async (action, deps) => {
    const canceled = await cancelContext(deps, action.id, action.serverId);
    return done(`canceled ${canceled} active task${canceled === 1 ? '' : 's'} of context ${action.id}`, { contextId: action.id });
  },
  'session.close': async (action, deps) => {
    const canceled = await cancelContext(deps, action.id, action.serverId);
    const instances = new Set(instancesOf(deps, action.serverId));
    // The operator names a context, not a tenant: its live session under every tenant goes.
    const released = deps.sessions
      .list()
      .filter((session) => instances.has(session.instanceId) && session.contextId === action.id)
      .filter((session) => deps.sessions.release(session.instanceId, session.contextId, session.tenant)).length;
    return done(
      `canceled ${canceled} active task${canceled === 1 ? '' : 's'} and released ${released} live session${released === 1 ? '' : 's'} of context ${action.id}`,
      {
        contextId: action.id,
      },
    );
  },
  ...PUSH_ACTION_HANDLERS,
};

/**
 * Cancels every task of the context that is not terminal, under every tenant that has one (the
 * operator names a context, not a tenant); fails when the context is unknown.
 */
async function cancelContext(deps: ControlDeps, contextId: string, serverId: string | undefined): Promise<number> {
  const instances = instancesOf(deps, serverId);
  const live = new Set(deps.sessions.list().flatMap((session) => (session.contextId === contextId ? [session.instanceId] : [])));
  let known = false;
  for (const instanceId of instances) {
    known =
      live.has(instanceId) ||
      (await deps.store.getContext(instanceId, contextId)) !== undefined ||
      (await deps.store.browseTasks({ instanceId, contextId, limit: 1, offset: 0 })).total > 0;
    if (known) break;
  }
  if (!known) throw new OperationError(`no session has context id "${contextId}"${serverId ? ` on instance "${serverId}"` : ''}`);
  let canceled = 0;
  for (const instanceId of instances) {
    const { rows } = await deps.store.browseTasks({ instanceId, contextId, limit: 10_000, offset: 0 });
    for (const row of rows.filter((task) => !isTerminalState(task.state))) {
      await deps.runtime.cancel(instanceId, row.id, { tenant: row.tenant, reason: 'the session was canceled from the control API' });
      canceled += 1;
    }
  }
  return canceled;
}

function instancesOf(deps: ControlDeps, serverId: string | undefined): string[] {
  if (serverId !== undefined) {
    if (deps.inbounds.get(serverId) === undefined) throw new OperationError(`no inbound instance has id "${serverId}"`);
    return [serverId];
  }
  return deps.inbounds.list().map((inbound) => inbound.id);
}

/** "3 skills, 2 tools" of a connection as it is now. */
function counts(outbounds: OutboundRegistry, id: string): string {
  const view = outbounds.view(id);
  return `${plural(view?.skills.length ?? 0, 'skill')}, ${plural(view?.toolSkills.length ?? 0, 'tool')}`;
}

/** What a reconnect that came with a change did, for the end of its message. */
function outcomeText(outbounds: OutboundRegistry, id: string, outcome: ConnectOutcome | undefined): string {
  if (outcome === undefined) return '';
  if (outcome.ok) return `; reconnected: ${counts(outbounds, id)}`;
  return `; reconnecting failed: ${outcome.reason}. The connection is in state error and is retried in the background`;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/** The start of a reply's text, one line for an action's message. */
function replyPreview(parts: readonly { text?: string }[]): string {
  return parts
    .map((part) => part.text ?? '')
    .join(' ')
    .slice(0, 200);
}
