import Router from '@koa/router';
import type { Context, Next } from 'koa';
import { MEDIA_TYPES } from '../../generated/a2a/1.0/protocol.js';
import {
  CONTROL_API,
  CONTROL_ENDPOINTS,
  isControlActionName,
  type ControlEndpointKey,
  type ControlQueryTypes,
} from '../../generated/control/api.js';
import type { ActionSuccess } from '../../generated/control/types.js';
import { DEFAULT_PRESET } from '../executors/presets.js';
import { baseUrlOf, type BaseUrlOptions } from '../http/base-url.js';
import { BodyError, readJsonBody, type BodyProblem } from '../http/body.js';
import { formatTools } from '../outbound/tool-formats.js';
import { CONTROL } from '../protocol/control-schema.js';
import { checkValue } from '../protocol/validation.js';
import { violationPhrases } from '../protocol/violations.js';
import { OperationError } from '../support/operation-error.js';
import { ACTION_HANDLERS } from './actions.js';
import type { ControlDeps } from './control-deps.js';
import { isLoopbackAddress } from './loopback.js';
import type { HubMetrics } from './metrics.js';
import type { RequestConnection } from './peers.js';
import { PANEL_HTML } from './panel.js';
import { taskPushView } from './push-view.js';
import { parseQuery } from './query.js';
import { ControlReplies, type ReplyOptions } from './replies.js';
import { buildSnapshot, taskRow } from './snapshot.js';

export const CONTROL_BASE = CONTROL_API.basePath;
export const PANEL_PATH = CONTROL_API.panelPath;

export interface ControlRouterOptions extends BaseUrlOptions, ReplyOptions {
  readonly deps: ControlDeps;
  readonly metrics: HubMetrics;
  readonly bodyLimitBytes: number;
  /** How long an action's body may stall without a byte; 0: no limit. */
  readonly bodyIdleTimeoutMs?: number;
}

/** The methods each path of the API serves, from spec/control/api.json, for 405 answers and their Allow header. */
const METHODS_BY_PATH: ReadonlyMap<string, readonly string[]> = Object.values(CONTROL_ENDPOINTS).reduce(
  (byPath, endpoint) => byPath.set(endpoint.path, [...(byPath.get(endpoint.path) ?? []), endpoint.method]),
  new Map<string, string[]>(),
);

/**
 * The loopback control API and the panel. Every route first checks that the TCP peer is this
 * machine (the socket's address, never a header) and answers 403 otherwise. Every answer is
 * typed by its endpoint in spec/control/api.json (src/control/replies.ts).
 */
export function createControlRouter(options: ControlRouterOptions): Router {
  const router = new Router();
  const { deps } = options;
  const replies = new ControlReplies(options);
  const loopbackOnly = async (ctx: Context, next: Next): Promise<void> => {
    if (!isLoopbackAddress(ctx.socket.remoteAddress)) return replies.refuse(ctx, 403, 'the control API answers loopback peers only');
    await next();
  };
  router.use([CONTROL_BASE, `${CONTROL_BASE}/*rest`, PANEL_PATH], loopbackOnly);

  /** The parsed query, or undefined once its violations have been answered with 400. */
  const readQuery = <K extends ControlEndpointKey>(ctx: Context, endpoint: K): ControlQueryTypes[K] | undefined => {
    const parsed = parseQuery(endpoint, ctx.query);
    if (parsed.ok) return parsed.values;
    replies.fail(ctx, endpoint, 400, {
      ok: false,
      message: `bad query: ${parsed.violations.map((v) => `${v.field} ${v.description}`).join('; ')}`,
      violations: parsed.violations,
    });
    return undefined;
  };

  router.get(PANEL_PATH, (ctx) => {
    ctx.set('Content-Security-Policy', "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'");
    ctx.set('Cache-Control', 'no-store');
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = PANEL_HTML;
  });

  router.get(CONTROL_BASE, async (ctx) => {
    const query = readQuery(ctx, 'GET /a2a/api');
    if (query === undefined) return;
    replies.ok(ctx, 'GET /a2a/api', await buildSnapshot(deps, query, baseUrlOf(ctx, options)));
  });

  router.post(CONTROL_BASE, async (ctx) => {
    const endpoint = 'POST /a2a/api';
    const body = await readBody(ctx, options.bodyLimitBytes, options.bodyIdleTimeoutMs ?? 0);
    if (!body.ok) return replies.fail(ctx, endpoint, body.status, { ok: false, message: body.message });
    const checked = checkValue(CONTROL, 'ControlAction', body.value, { flavour: 'exact' });
    if (!checked.ok) {
      const message = `not a valid control action: ${violationPhrases(checked.violations, 'body').join('; ')}`;
      return replies.fail(ctx, endpoint, 400, {
        ok: false,
        message,
        violations: checked.violations.map(({ field, description }) => ({ field, description })),
      });
    }
    const action = checked.value as { action: string };
    if (!isControlActionName(action.action))
      return replies.fail(ctx, endpoint, 400, { ok: false, message: `unknown action ${JSON.stringify(action.action)}` });
    try {
      const handler = ACTION_HANDLERS[action.action] as (
        action: unknown,
        deps: ControlDeps,
        connection: RequestConnection,
      ) => Promise<ActionSuccess> | ActionSuccess;
      // Node's HTTP server ends a connection after a response that says Connection: close.
      const connection = { socket: ctx.socket, endAfterResponse: () => ctx.set('Connection', 'close') };
      replies.ok(ctx, endpoint, await handler(action, deps, connection));
    } catch (error) {
      if (error instanceof OperationError) return replies.fail(ctx, endpoint, 409, { ok: false, message: error.message });
      throw error;
    }
  });

  router.get(CONTROL_ENDPOINTS['GET /a2a/api/presets'].path, (ctx) => {
    replies.ok(
      ctx,
      'GET /a2a/api/presets',
      deps.presets
        .list()
        .map((preset) => ({ id: preset.id, name: preset.name, description: preset.description, isDefault: preset.id === DEFAULT_PRESET })),
    );
  });

  router.get(CONTROL_ENDPOINTS['GET /a2a/api/card'].path, (ctx) => {
    const endpoint = 'GET /a2a/api/card';
    const query = readQuery(ctx, endpoint);
    if (query === undefined) return;
    const agent = deps.inbounds.agent(query.id);
    const unavailable = deps.inbounds.unavailableReason(query.id);
    if (agent === undefined) {
      const message =
        unavailable === undefined
          ? `no inbound instance has id ${JSON.stringify(query.id)}`
          : `inbound instance ${JSON.stringify(query.id)} has no card while it is unavailable: ${unavailable}`;
      return replies.fail(ctx, endpoint, 404, { ok: false, message });
    }
    replies.ok(ctx, endpoint, { ...agent.card(baseUrlOf(ctx, options)) });
  });

  router.get(CONTROL_ENDPOINTS['GET /a2a/api/task'].path, async (ctx) => {
    const endpoint = 'GET /a2a/api/task';
    const query = readQuery(ctx, endpoint);
    if (query === undefined) return;
    const info = await deps.store.getTaskInfo(query.id);
    const task = info === undefined ? undefined : await deps.store.getTask(info.instanceId, info.id, { tenant: info.tenant });
    if (info === undefined || task === undefined)
      return replies.fail(ctx, endpoint, 404, { ok: false, message: `no task has id ${JSON.stringify(query.id)}` });
    replies.ok(ctx, endpoint, { ...task, serverId: info.instanceId, ...(info.tenant === '' ? {} : { tenant: info.tenant }) });
  });

  router.get(CONTROL_ENDPOINTS['GET /a2a/api/push'].path, async (ctx) => {
    const endpoint = 'GET /a2a/api/push';
    const query = readQuery(ctx, endpoint);
    if (query === undefined) return;
    const info = await deps.store.getTaskInfo(query.taskId);
    if (info === undefined)
      return replies.fail(ctx, endpoint, 404, { ok: false, message: `no task has id ${JSON.stringify(query.taskId)}` });
    replies.ok(ctx, endpoint, await taskPushView(deps.store, info, query.attemptLimit));
  });

  router.get(CONTROL_ENDPOINTS['GET /a2a/api/session'].path, async (ctx) => {
    const endpoint = 'GET /a2a/api/session';
    const query = readQuery(ctx, endpoint);
    if (query === undefined) return;
    const { contextId, serverId } = query;
    // One contextId under two tenants is two conversations: the query names which.
    const tenant = query.tenant ?? '';
    const binding = await deps.store.getContext(serverId, contextId, tenant);
    const live = deps.sessions.get(serverId, contextId, tenant);
    const createdAt = binding?.createdAt ?? live?.createdAt;
    const lastActiveAt = live?.lastActiveAt ?? binding?.lastActiveAt;
    if (createdAt === undefined || lastActiveAt === undefined) {
      const under = tenant === '' ? '' : ` under tenant ${JSON.stringify(tenant)}`;
      return replies.fail(ctx, endpoint, 404, {
        ok: false,
        message: `no session has context id ${JSON.stringify(contextId)} on instance ${JSON.stringify(serverId)}${under}`,
      });
    }
    const tasks = await deps.store.browseTasks({ instanceId: serverId, tenant, contextId, limit: 100, offset: 0 });
    replies.ok(ctx, endpoint, {
      contextId,
      serverId,
      ...(tenant === '' ? {} : { tenant }),
      live: live !== undefined,
      activeTasks: live?.activeTasks ?? 0,
      taskCount: tasks.total,
      createdAt,
      lastActiveAt,
      tasks: tasks.rows.map(taskRow),
    });
  });

  router.get(CONTROL_ENDPOINTS['GET /a2a/api/tools'].path, (ctx) => {
    const query = readQuery(ctx, 'GET /a2a/api/tools');
    if (query === undefined) return;
    replies.ok(ctx, 'GET /a2a/api/tools', formatTools(deps.tools.list(), query.format));
  });

  router.get(CONTROL_ENDPOINTS['GET /a2a/api/metrics'].path, async (ctx) => {
    const query = readQuery(ctx, 'GET /a2a/api/metrics');
    if (query === undefined) return;
    const prometheus = query.format === 'prometheus' || (ctx.query['format'] === undefined && /^text\/plain/.test(ctx.get('accept')));
    if (prometheus) {
      ctx.status = 200;
      ctx.type = 'text/plain; version=0.0.4; charset=utf-8';
      ctx.body = await options.metrics.toPrometheus();
      return;
    }
    replies.ok(ctx, 'GET /a2a/api/metrics', await options.metrics.toJson());
  });

  // Known paths with a method they do not serve get 405 and Allow; anything else under the base, 404.
  router.all([CONTROL_BASE, `${CONTROL_BASE}/*rest`], (ctx) => {
    const allowed = METHODS_BY_PATH.get(ctx.path);
    if (allowed === undefined) return replies.refuse(ctx, 404, `nothing is served at ${ctx.path}`);
    ctx.set('Allow', allowed.join(', '));
    replies.refuse(ctx, 405, `${ctx.method} is not allowed on ${ctx.path}; use ${allowed.join(' or ')}`);
  });
  router.all(PANEL_PATH, (ctx) => {
    ctx.set('Allow', 'GET');
    replies.refuse(ctx, 405, `${ctx.method} is not allowed on ${PANEL_PATH}; use GET`);
  });
  return router;
}

/** The action body, or the status and message that refuse it (415, 413 or 400). */
async function readBody(
  ctx: Context,
  limit: number,
  idleMs: number,
): Promise<{ ok: true; value: unknown } | { ok: false; status: number; message: string }> {
  try {
    // The control API is not A2A: plain JSON only.
    return { ok: true, value: await readJsonBody(ctx, limit, { accepted: [MEDIA_TYPES.json], idleMs }) };
  } catch (error) {
    if (!(error instanceof BodyError)) throw error;
    return { ok: false, status: BODY_STATUS[error.problem], message: error.message };
  }
}

const BODY_STATUS: Readonly<Record<BodyProblem, number>> = {
  'media-type': 415,
  'too-large': 413,
  unreadable: 400,
  'not-json': 400,
  'too-deep': 400,
  idle: 408,
};
