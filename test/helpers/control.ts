import { expect } from 'vitest';
import { CONTROL_API } from '../../generated/control/api.js';
import type { ActionSuccess, InboundRow, Snapshot } from '../../generated/control/types.js';
import { CONTROL, type ControlDefs } from '../../src/protocol/control-schema.js';
import { checkValue } from '../../src/protocol/validation.js';
import { send } from './raw-http.js';

/**
 * The control API (`/a2a/api`) as tests drive it: every body checked against the exact
 * control-API validators, so configuring an instance through it also proves the answers' shape.
 */

type ControlDef = Extract<keyof ControlDefs, string>;

/** Validates `body` as the control def `def` with the exact validators and returns it typed. */
export function expectControl<K extends ControlDef>(def: K, body: unknown): ControlDefs[K] {
  const verdict = checkValue(CONTROL, def, body, { flavour: 'exact' });
  expect(verdict.ok ? [] : verdict.violations, `${def}: ${JSON.stringify(body)}`).toEqual([]);
  return body as ControlDefs[K];
}

/** Runs an action and expects 200 with a valid ActionSuccess. */
export async function controlAction(base: string, action: Record<string, unknown>): Promise<ActionSuccess> {
  const answer = await send(`${base}${CONTROL_API.basePath}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(action),
  });
  expect(answer.status, `${String(action['action'])}: ${answer.text}`).toBe(200);
  expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
  const body = expectControl('ActionSuccess', JSON.parse(answer.text));
  expect(body.ok).toBe(true);
  expect(body.message.length).toBeGreaterThan(0);
  return body;
}

/** The snapshot (`GET /a2a/api` with `query`), validated. */
export async function controlSnapshot(base: string, query = ''): Promise<Snapshot> {
  const path = `${CONTROL_API.basePath}${query}`;
  const answer = await send(`${base}${path}`);
  expect(answer.status, `${path}: ${answer.text}`).toBe(200);
  expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
  return expectControl('Snapshot', JSON.parse(answer.text));
}

/** The snapshot row of inbound instance `id`. */
export async function inboundRow(base: string, id: string): Promise<InboundRow | undefined> {
  return (await controlSnapshot(base)).inbounds.find((row) => row.id === id);
}

/** Creates an inbound instance through the API and returns its id. */
export async function createInbound(base: string, name: string, extra: Record<string, unknown> = {}): Promise<string> {
  const created = await controlAction(base, { action: 'inbound.create', name, description: `${name} agent`, version: '0.1.0', ...extra });
  expect(created.id).toBeDefined();
  return created.id ?? '';
}
