import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ActionSuccess, InboundRow, Snapshot } from '../../generated/control/types.js';
import { CONTROL } from '../../src/protocol/control-schema.js';
import { checkValue } from '../../src/protocol/validation.js';
import { startTestHub } from '../helpers/hub.js';
import { listTasksStatus, statusOf } from '../helpers/raw-http.js';

/** What the control API changes is stored in the data dir: a second hub on it finds it all. */

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function act(base: string, action: Record<string, unknown>): Promise<ActionSuccess> {
  const response = await fetch(`${base}/a2a/api`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(action),
  });
  const text = await response.text();
  expect(response.status, text).toBe(200);
  const body = JSON.parse(text) as unknown;
  const verdict = checkValue(CONTROL, 'ActionSuccess', body, { flavour: 'exact' });
  expect(verdict.ok ? [] : verdict.violations).toEqual([]);
  return body as ActionSuccess;
}

async function inbounds(base: string): Promise<InboundRow[]> {
  const response = await fetch(`${base}/a2a/api`);
  expect(response.status).toBe(200);
  const body = await response.json();
  const verdict = checkValue(CONTROL, 'Snapshot', body, { flavour: 'exact' });
  expect(verdict.ok ? [] : verdict.violations).toEqual([]);
  return (body as Snapshot).inbounds.sort((a, b) => a.id.localeCompare(b.id));
}

/** The rows with `<base>` for the hub's own URL, which the next hub (on another port) does not share. */
async function portlessInbounds(base: string): Promise<InboundRow[]> {
  return (await inbounds(base)).map((row) => ({
    ...row,
    cardUrl: row.cardUrl.replace(base, '<base>'),
    endpointUrl: row.endpointUrl.replace(base, '<base>'),
    jsonRpcUrl: row.jsonRpcUrl.replace(base, '<base>'),
    restUrl: row.restUrl.replace(base, '<base>'),
  }));
}

/** The status of a ListTasks to `url`, with the bearer token when one is given. */
const listTasks = (url: string, token?: string): Promise<number> =>
  listTasksStatus(url, token === undefined ? {} : { authorization: `Bearer ${token}` });

describe('the control API survives a restart on the same dataDir', () => {
  it('create, update, disable and setAuth are all back after a restart', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'a2a-hub-control-restart-'));
    dirs.push(dataDir);
    const token = randomBytes(16).toString('hex');
    const envToken = randomBytes(16).toString('hex');
    const env = { RESTART_TEST_TOKEN: envToken };
    const suffix = randomBytes(3).toString('hex');

    const first = await startTestHub({ dataDir, env });
    let ids: { moved: string; disabled: string; guarded: string; fromEnv: string; removed: string; cleared: string; placed: string };
    let before: InboundRow[];
    try {
      const base = first.url;
      const moved = (await act(base, { action: 'inbound.create', name: 'Persisted', description: 'before', version: '0.1.0' })).id ?? '';
      await act(base, {
        action: 'inbound.update',
        id: moved,
        name: 'Persisted Renamed',
        description: 'after',
        version: '0.2.0',
        endpointPath: `/agents/persisted-${suffix}`,
      });
      const disabled = (await act(base, { action: 'inbound.create', name: 'Sleeper', description: 'd', version: '1' })).id ?? '';
      await act(base, { action: 'inbound.disable', id: disabled });
      const guarded = (await act(base, { action: 'inbound.create', name: 'Guarded', description: 'd', version: '1' })).id ?? '';
      await act(base, { action: 'inbound.setAuth', id: guarded, token });
      const fromEnv =
        (
          await act(base, {
            action: 'inbound.create',
            name: 'From Env',
            description: 'd',
            version: '1',
            authTokenEnv: 'RESTART_TEST_TOKEN',
            endpointPath: `/agents/env-${suffix}`,
          })
        ).id ?? '';
      const cleared = (await act(base, { action: 'inbound.create', name: 'Cleared', description: 'd', version: '1' })).id ?? '';
      await act(base, { action: 'inbound.setAuth', id: cleared, token });
      await act(base, { action: 'inbound.setAuth', id: cleared, token: '' });
      const removed = (await act(base, { action: 'inbound.create', name: 'Gone', description: 'd', version: '1' })).id ?? '';
      await act(base, { action: 'inbound.remove', id: removed });
      const placed =
        (
          await act(base, {
            action: 'inbound.create',
            name: 'Placed',
            description: 'd',
            version: '1',
            endpointPath: `/agents/placed-${suffix}`,
            jsonRpcPath: `/agents/placed-${suffix}/jsonrpc`,
            restPath: `/v1/placed-${suffix}`,
            tenants: ['research'],
          })
        ).id ?? '';
      ids = { moved, disabled, guarded, fromEnv, removed, cleared, placed };
      before = await portlessInbounds(base);
    } finally {
      await first.close();
    }

    // Only a digest of the token is stored.
    for (const file of readdirSync(dataDir)) {
      const bytes = readFileSync(join(dataDir, file));
      expect(bytes.includes(token), file).toBe(false);
      expect(bytes.includes(envToken), file).toBe(false);
    }

    const second = await startTestHub({ dataDir, env });
    try {
      const base = second.url;
      const after = await portlessInbounds(base);
      expect(after).toEqual(before);
      expect(after.map((row) => row.id)).not.toContain(ids.removed);
      expect(after.find((row) => row.id === ids.moved)).toMatchObject({
        name: 'Persisted Renamed',
        description: 'after',
        version: '0.2.0',
        endpointPath: `/agents/persisted-${suffix}`,
        enabled: true,
      });
      expect(after.find((row) => row.id === ids.disabled)?.enabled).toBe(false);
      expect(after.find((row) => row.id === ids.placed)).toMatchObject({
        jsonRpcPath: `/agents/placed-${suffix}/jsonrpc`,
        restPath: `/v1/placed-${suffix}`,
        tenants: ['research'],
        restUrl: `<base>/v1/placed-${suffix}`,
      });
      expect(await listTasks(`${base}/agents/placed-${suffix}/jsonrpc`)).toBe(200);
      expect(after.find((row) => row.id === ids.guarded)).toMatchObject({ authEnabled: true });
      expect(after.find((row) => row.id === ids.guarded)).not.toHaveProperty('authTokenEnv');
      expect(after.find((row) => row.id === ids.fromEnv)).toMatchObject({ authEnabled: true, authTokenEnv: 'RESTART_TEST_TOKEN' });
      expect(after.find((row) => row.id === ids.cleared)).toMatchObject({ authEnabled: false });

      // The update: the card and endpoint live at the new path only, with the new name.
      const card = (await (await fetch(`${base}/agents/persisted-${suffix}/agent-card.json`)).json()) as { name: string; version: string };
      expect(card).toMatchObject({ name: 'Persisted Renamed', version: '0.2.0' });
      expect(await statusOf(`${base}/a2a/${ids.moved}/agent-card.json`)).toBe(404);
      expect(await listTasks(`${base}/agents/persisted-${suffix}`)).toBe(200);

      // The disable: 404 on both routes until enabled again.
      expect(await statusOf(`${base}/a2a/${ids.disabled}/agent-card.json`)).toBe(404);
      expect(await listTasks(`${base}/a2a/${ids.disabled}`)).toBe(404);
      await act(base, { action: 'inbound.enable', id: ids.disabled });
      expect(await listTasks(`${base}/a2a/${ids.disabled}`)).toBe(200);

      // setAuth: the same token still opens the endpoint, nothing else does.
      expect(await listTasks(`${base}/a2a/${ids.guarded}`)).toBe(401);
      expect(await listTasks(`${base}/a2a/${ids.guarded}`, 'wrong')).toBe(401);
      expect(await listTasks(`${base}/a2a/${ids.guarded}`, token)).toBe(200);
      expect(await listTasks(`${base}/agents/env-${suffix}`)).toBe(401);
      expect(await listTasks(`${base}/agents/env-${suffix}`, envToken)).toBe(200);
      expect(await listTasks(`${base}/a2a/${ids.cleared}`)).toBe(200);

      // The remove.
      expect(await statusOf(`${base}/a2a/${ids.removed}/agent-card.json`)).toBe(404);
      expect((await fetch(`${base}/a2a/api/card?id=${ids.removed}`)).status).toBe(404);
    } finally {
      await second.close();
    }
  });

  it('the default instance removed through the API stays removed', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'a2a-hub-control-restart-'));
    dirs.push(dataDir);
    const first = await startTestHub({ dataDir });
    try {
      await act(first.url, { action: 'inbound.remove', id: 'default' });
    } finally {
      await first.close();
    }
    const second = await startTestHub({ dataDir });
    try {
      expect((await inbounds(second.url)).map((row) => row.id)).not.toContain('default');
      expect(await statusOf(`${second.url}/a2a/default/agent-card.json`)).toBe(404);
    } finally {
      await second.close();
    }
  });
});
