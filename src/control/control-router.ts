import Router from '@koa/router';
import type { Context, Next } from 'koa';
import { isControlActionName } from '../../generated/control/api.js';
import type { TaskState } from '../../generated/a2a/1.0/types.js';
import { baseUrlOf, type BaseUrlOptions } from '../http/base-url.js';
import { BodyError, readJsonBody, type BodyProblem } from '../http/body.js';
import { DEFAULT_PRESET } from '../executors/presets.js';
import { OperationError } from '../support/operation-error.js';
import { CONTROL } from '../protocol/control-schema.js';
import { formatTools, type ToolFormat } from '../outbound/tool-formats.js';
import { checkValue } from '../protocol/validation.js';
import { ACTION_HANDLERS } from './actions.js';
import type { ControlDeps } from './control-deps.js';
import { isLoopbackAddress } from './loopback.js';
import type { HubMetrics } from './metrics.js';
import { PANEL_HTML } from './panel.js';
import { parseQuery } from './query.js';
import { buildSnapshot, taskRow } from './snapshot.js';

export const CONTROL_BASE = '/a2a/api';
export const PANEL_PATH = '/a2a/panel';

export interface ControlRouterOptions extends BaseUrlOptions {
  readonly deps: ControlDeps;
  readonly metrics: HubMetrics;
  readonly bodyLimitBytes: number;
}

/**
 * The loopback control API and the panel. Every route first checks that the TCP peer is this
 * machine (the socket's address, never a header) and answers 403 otherwise.
 */
export function createControlRouter(options: ControlRouterOptions): Router {
  const router = new Router();
  const { deps } = options;
  const loopbackOnly = async (ctx: Context, next: Next): Promise<void> => {
    if (!isLoopbackAddress(ctx.socket.remoteAddress)) return reply(ctx, 403, { ok: false, message: 'the control API answers loopback peers only' });
    await next();
  };
  router.use([CONTROL_BASE, `${CONTROL_BASE}/*rest`, PANEL_PATH], loopbackOnly);

  router.get(PANEL_PATH, (ctx) => {
    ctx.set('Content-Security-Policy', "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'");
    ctx.set('Cache-Control', 'no-store');
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = PANEL_HTML;
  });

  router.get(CONTROL_BASE, (ctx) => {
    const query = readQuery(ctx, CONTROL_BASE);
    if (query === undefined) return;
    reply(ctx, 200, buildSnapshot(deps, query as { taskLimit: number; taskOffset: number; taskState?: TaskState; taskContextId?: string; taskServerId?: string }, baseUrlOf(ctx, options)));
  });

  router.post(CONTROL_BASE, async (ctx) => {
    const body = await readBody(ctx, options.bodyLimitBytes);
    if (body === undefined) return;
    const checked = checkValue(CONTROL, 'ControlAction', body, { flavour: 'exact' });
    if (!checked.ok) return reply(ctx, 400, { ok: false, message: `not a valid control action: ${checked.violations.map((v) => `${v.field || 'body'} ${v.description}`).join('; ')}`, violations: checked.violations.map(({ field, description }) => ({ field, description })) });
    const action = checked.value as { action: string };
    if (!isControlActionName(action.action)) return reply(ctx, 400, { ok: false, message: `unknown action ${JSON.stringify(action.action)}` });
    try {
      const handler = ACTION_HANDLERS[action.action] as (action: unknown, deps: ControlDeps) => unknown;
      reply(ctx, 200, await handler(action, deps));
    } catch (error) {
      if (error instanceof OperationError) return reply(ctx, 409, { ok: false, message: error.message });
      throw error;
    }
  });

  router.get(`${CONTROL_BASE}/presets`, (ctx) => {
    reply(ctx, 200, deps.presets.list().map((preset) => ({ id: preset.id, name: preset.name, description: preset.description, isDefault: preset.id === DEFAULT_PRESET })));
  });

  router.get(`${CONTROL_BASE}/card`, (ctx) => {
    const query = readQuery(ctx, `${CONTROL_BASE}/card`);
    if (query === undefined) return;
    const agent = deps.inbounds.agent(String(query['id']));
    if (agent === undefined) return reply(ctx, 404, { ok: false, message: `no inbound instance has id ${JSON.stringify(query['id'])}` });
    reply(ctx, 200, agent.card(baseUrlOf(ctx, options)));
  });

  router.get(`${CONTROL_BASE}/task`, (ctx) => {
    const query = readQuery(ctx, `${CONTROL_BASE}/task`);
    if (query === undefined) return;
    const info = deps.store.getTaskInfo(String(query['id']));
    const task = info === undefined ? undefined : deps.store.getTask(info.instanceId, info.id);
    if (info === undefined || task === undefined) return reply(ctx, 404, { ok: false, message: `no task has id ${JSON.stringify(query['id'])}` });
    reply(ctx, 200, { ...task, serverId: info.instanceId });
  });

  router.get(`${CONTROL_BASE}/session`, (ctx) => {
    const query = readQuery(ctx, `${CONTROL_BASE}/session`);
    if (query === undefined) return;
    const contextId = String(query['contextId']);
    const serverId = String(query['serverId']);
    const binding = deps.store.getContext(serverId, contextId);
    const live = deps.sessions.get(serverId, contextId);
    if (binding === undefined && live === undefined) return reply(ctx, 404, { ok: false, message: `no session has context id ${JSON.stringify(contextId)} on instance ${JSON.stringify(serverId)}` });
    const tasks = deps.store.browseTasks({ instanceId: serverId, contextId, limit: 100, offset: 0 });
    reply(ctx, 200, {
      contextId,
      serverId,
      live: live !== undefined,
      activeTasks: live?.activeTasks ?? 0,
      taskCount: tasks.total,
      createdAt: binding?.createdAt ?? live?.createdAt,
      lastActiveAt: live?.lastActiveAt ?? binding?.lastActiveAt,
      tasks: tasks.rows.map(taskRow),
    });
  });

  router.get(`${CONTROL_BASE}/tools`, (ctx) => {
    const query = readQuery(ctx, `${CONTROL_BASE}/tools`);
    if (query === undefined) return;
    reply(ctx, 200, formatTools(deps.tools.list(), query['format'] as ToolFormat));
  });

  router.get(`${CONTROL_BASE}/metrics`, (ctx) => {
    const query = readQuery(ctx, `${CONTROL_BASE}/metrics`);
    if (query === undefined) return;
    const prometheus = query['format'] === 'prometheus' || (ctx.query['format'] === undefined && /^text\/plain/.test(ctx.get('accept')));
    if (prometheus) {
      ctx.status = 200;
      ctx.type = 'text/plain; version=0.0.4; charset=utf-8';
      ctx.body = options.metrics.toPrometheus();
      return;
    }
    reply(ctx, 200, options.metrics.toJson());
  });

  // Known paths with a method they do not serve get 405 and Allow; anything else under the base, 404.
  router.all([CONTROL_BASE, `${CONTROL_BASE}/*rest`], (ctx) => {
    const allowed = ctx.path === CONTROL_BASE ? ['GET', 'POST'] : ['/presets', '/card', '/task', '/session', '/tools', '/metrics'].includes(ctx.path.slice(CONTROL_BASE.length)) ? ['GET'] : undefined;
    if (allowed === undefined) return reply(ctx, 404, { ok: false, message: `nothing is served at ${ctx.path}` });
    ctx.set('Allow', allowed.join(', '));
    reply(ctx, 405, { ok: false, message: `${ctx.method} is not allowed on ${ctx.path}; use ${allowed.join(' or ')}` });
  });
  router.all(PANEL_PATH, (ctx) => {
    ctx.set('Allow', 'GET');
    reply(ctx, 405, { ok: false, message: `${ctx.method} is not allowed on ${PANEL_PATH}; use GET` });
  });
  return router;
}

function reply(ctx: Context, status: number, body: unknown): void {
  ctx.status = status;
  ctx.type = 'application/json';
  ctx.body = JSON.stringify(body);
}

function readQuery(ctx: Context, path: string): Record<string, unknown> | undefined {
  const parsed = parseQuery(path, ctx.query);
  if (parsed.ok) return parsed.values;
  reply(ctx, 400, { ok: false, message: `bad query: ${parsed.violations.map((v) => `${v.field} ${v.description}`).join('; ')}`, violations: parsed.violations });
  return undefined;
}

/** The action body, or undefined once the failure has been answered (415, 413 or 400). */
async function readBody(ctx: Context, limit: number): Promise<unknown> {
  try {
    return await readJsonBody(ctx, limit);
  } catch (error) {
    if (!(error instanceof BodyError)) throw error;
    reply(ctx, BODY_STATUS[error.problem], { ok: false, message: error.message });
    return undefined;
  }
}

const BODY_STATUS: Readonly<Record<BodyProblem, number>> = { 'media-type': 415, 'too-large': 413, unreadable: 400, 'not-json': 400 };
