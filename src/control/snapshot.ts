import type { TaskState } from '../../generated/a2a/1.0/types.js';
import type { InboundRow, OutboundRow, SessionRow, Snapshot, TaskRow } from '../../generated/control/types.js';
import { pathsOf } from '../inbound/instance-paths.js';
import type { TaskInfo } from '../store/task-store.js';
import type { ControlDeps } from './control-deps.js';
import { pushSummary } from './push-view.js';

export interface TaskPageQuery {
  readonly taskLimit: number;
  readonly taskOffset: number;
  readonly taskState?: TaskState;
  readonly taskContextId?: string;
  readonly taskServerId?: string;
}

/** The whole picture the panel shows: instances, connections, a page of tasks, peers, sessions and push health. Never a token. */
export async function buildSnapshot(deps: ControlDeps, query: TaskPageQuery, baseUrl: string): Promise<Snapshot> {
  const sessions = deps.sessions.list();
  const [page, taskCounts, push] = await Promise.all([
    deps.store.browseTasks({
      limit: query.taskLimit,
      offset: query.taskOffset,
      ...(query.taskState === undefined ? {} : { state: query.taskState }),
      ...(query.taskContextId === undefined ? {} : { contextId: query.taskContextId }),
      ...(query.taskServerId === undefined ? {} : { instanceId: query.taskServerId }),
    }),
    Promise.all(
      sessions.map(
        async (session) =>
          (
            await deps.store.browseTasks({
              instanceId: session.instanceId,
              tenant: session.tenant,
              contextId: session.contextId,
              limit: 1,
              offset: 0,
            })
          ).total,
      ),
    ),
    pushSummary(deps.store),
  ]);
  return {
    inbounds: deps.inbounds
      .list()
      .map((inbound) => inboundRow(deps, inbound.id, baseUrl))
      .filter((row): row is InboundRow => row !== undefined),
    outbounds: deps.outbounds
      .list()
      .map((outbound) => outboundRow(deps, outbound.id))
      .filter((row): row is OutboundRow => row !== undefined),
    tasks: page.rows.map(taskRow),
    peers: deps.peers.list(),
    sessions: sessions.map((session, index): SessionRow => ({
      contextId: session.contextId,
      serverId: session.instanceId,
      ...(session.tenant === '' ? {} : { tenant: session.tenant }),
      activeTasks: session.activeTasks,
      taskCount: taskCounts[index] ?? 0,
      createdAt: session.createdAt,
      lastActiveAt: session.lastActiveAt,
    })),
    taskPage: { limit: query.taskLimit, offset: query.taskOffset, total: page.total },
    push,
    retention: deps.retention.summary(),
  };
}

export function inboundRow(deps: ControlDeps, id: string, baseUrl: string): InboundRow | undefined {
  const config = deps.inbounds.get(id);
  if (config === undefined) return undefined;
  const agent = deps.inbounds.agent(id);
  const unavailableReason = deps.inbounds.unavailableReason(id);
  const auth = deps.inbounds.authOf(id);
  // An instance that cannot run has no card: its own skills are all it can show.
  const skills = agent?.card(baseUrl).skills ?? config.skills ?? [];
  const paths = pathsOf(config);
  return {
    id: config.id,
    name: config.name,
    description: config.description,
    version: config.version,
    endpointPath: paths.endpointPath,
    jsonRpcPath: paths.jsonRpcPath,
    restPath: paths.restPath,
    ...(config.tenants === undefined ? {} : { tenants: [...config.tenants] }),
    preset: config.preset,
    cardPath: paths.cardPath,
    cardUrl: `${baseUrl}${paths.cardPath}`,
    endpointUrl: `${baseUrl}${paths.endpointPath}`,
    jsonRpcUrl: `${baseUrl}${paths.jsonRpcPath}`,
    restUrl: `${baseUrl}${paths.restPath}`,
    enabled: config.enabled,
    authEnabled: auth.enabled,
    ...(auth.authTokenEnv === undefined ? {} : { authTokenEnv: auth.authTokenEnv }),
    ...(config.retention === undefined ? {} : { retention: { ...config.retention } }),
    ...(config.relayTo === undefined ? {} : { relayTo: config.relayTo }),
    skills: skills.map((skill) => ({ id: skill.id, name: skill.name, description: skill.description, tags: [...skill.tags] })),
    ...(unavailableReason === undefined ? { status: 'available' as const } : { status: 'unavailable' as const, unavailableReason }),
  };
}

/** One connection: its state and counts, and whether a token is sent; never the token. */
export function outboundRow(deps: ControlDeps, id: string): OutboundRow | undefined {
  const view = deps.outbounds.view(id);
  if (view === undefined) return undefined;
  const { config } = view;
  const auth = deps.outbounds.authOf(id);
  return {
    id: config.id,
    name: config.name,
    agentCardUrl: config.agentCardUrl,
    enabled: config.enabled,
    timeoutMs: config.timeoutMs,
    pollIntervalMs: config.pollIntervalMs,
    state: view.state,
    ...(view.error === undefined ? {} : { error: view.error }),
    skillCount: view.skills.length,
    toolCount: view.toolSkills.length,
    ...(config.preset === undefined ? {} : { preset: config.preset }),
    ...(auth.bearerTokenEnv === undefined ? {} : { bearerTokenEnv: auth.bearerTokenEnv }),
    authEnabled: auth.enabled,
    disabledSkills: [...config.disabledSkills],
    skillOverrides: structuredClone(config.skillOverrides),
  };
}

export function taskRow(info: TaskInfo): TaskRow {
  return {
    id: info.id,
    contextId: info.contextId,
    serverId: info.instanceId,
    ...(info.tenant === '' ? {} : { tenant: info.tenant }),
    state: info.state,
    createdAt: info.createdAt,
    updatedAt: info.updatedAt,
    ...(info.skill ? { skill: info.skill } : {}),
  };
}
