import { createServer } from 'node:net';
import { expect } from 'vitest';
import type { ActionFailure, ActionSuccess, OutboundRow, Snapshot, ToolList } from '../../generated/control/types.js';
import { CONTROL, type ControlDefs } from '../../src/protocol/control-schema.js';
import { checkValue } from '../../src/protocol/validation.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import type { HubOptions } from '../../src/hub.js';
import { until } from '../helpers/wait.js';

/**
 * Drives the control API over HTTP as test/control does: every body is checked against the
 * exact control-API validators, so each call also proves the shape of what came back.
 */

type ControlDef = Extract<keyof ControlDefs, string>;

export function valid<K extends ControlDef>(def: K, body: unknown): ControlDefs[K] {
  const verdict = checkValue(CONTROL, def, body, { flavour: 'exact' });
  expect(verdict.ok ? [] : verdict.violations, `${def}: ${JSON.stringify(body)}`).toEqual([]);
  return body as ControlDefs[K];
}

export interface Answer {
  readonly status: number;
  readonly text: string;
  readonly body: unknown;
}

export async function post(base: string, action: Record<string, unknown>): Promise<Answer> {
  const response = await fetch(`${base}/a2a/api`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(action),
  });
  const text = await response.text();
  return { status: response.status, text, body: JSON.parse(text) as unknown };
}

/** Runs an action and expects 200 with a valid ActionSuccess. */
export async function ok(base: string, action: Record<string, unknown>): Promise<ActionSuccess & { text: string }> {
  const answer = await post(base, action);
  expect(answer.status, `${String(action['action'])}: ${answer.text}`).toBe(200);
  return { ...valid('ActionSuccess', answer.body), text: answer.text };
}

/** Runs an action and expects `status` (409 by default) with a valid ActionFailure. */
export async function fails(base: string, action: Record<string, unknown>, status = 409): Promise<ActionFailure & { text: string }> {
  const answer = await post(base, action);
  expect(answer.status, `${String(action['action'])}: ${answer.text}`).toBe(status);
  return { ...valid('ActionFailure', answer.body), text: answer.text };
}

export async function snapshot(base: string): Promise<Snapshot & { text: string }> {
  const response = await fetch(`${base}/a2a/api`);
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return { ...valid('Snapshot', JSON.parse(text) as unknown), text };
}

export async function outboundRow(base: string, id: string): Promise<OutboundRow | undefined> {
  return (await snapshot(base)).outbounds.find((row) => row.id === id);
}

export async function toolList(base: string, format?: string): Promise<ToolList> {
  const response = await fetch(`${base}/a2a/api/tools${format === undefined ? '' : `?format=${format}`}`);
  const text = await response.text();
  expect(response.status, text).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  return valid('ToolList', JSON.parse(text) as unknown);
}

/** Tool names of the hub format, sorted as the endpoint sorts them. */
export async function toolNames(base: string): Promise<string[]> {
  const list = await toolList(base);
  return list.tools.map((tool) => ('name' in tool ? tool.name : ''));
}

/** Creates a connection through the API and returns its id. */
export async function createOutbound(
  base: string,
  name: string,
  agentCardUrl: string,
  extra: Record<string, unknown> = {},
): Promise<string> {
  const created = await ok(base, { action: 'outbound.create', name, agentCardUrl, ...extra });
  expect(created.id).toMatch(/^out-[0-9a-f]{8}-[0-9a-f]{3}$/);
  return created.id ?? '';
}

export { until };

/**
 * Waits until a slow echo task (`::slow N`) of the instance has reported `step 2 of N`, and
 * returns its id. By then its first frames reached the caller, which therefore knows the task
 * id: an abort before that cannot cancel a task it has not heard of yet.
 */
export async function slowTaskUnderway(remote: TestHub, instanceId = 'default'): Promise<string> {
  let taskId: string | undefined;
  await until(async () => {
    for (const row of (await remote.store.browseTasks({ instanceId, state: 'TASK_STATE_WORKING', limit: 10, offset: 0 })).rows) {
      const said = (await remote.store.getTask(instanceId, row.id))?.status.message?.parts.map((part) => part.text ?? '').join('') ?? '';
      if (/^step ([2-9]|\d\d+) of /.test(said)) taskId = row.id;
    }
    return taskId !== undefined;
  }, `a slow task of ${instanceId} to be underway`);
  return taskId ?? '';
}

/** A hub whose failed connections are retried quickly. */
export function startLocalHub(options: HubOptions = {}): Promise<TestHub> {
  return startTestHub({ outbound: { reconnectMinMs: 50, reconnectMaxMs: 200 }, ...options });
}

/** The card URL of an instance of a test hub. */
export function cardUrl(hub: TestHub, instanceId = 'default'): string {
  return `${hub.url}/a2a/${instanceId}/agent-card.json`;
}

/** A loopback port nobody listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
