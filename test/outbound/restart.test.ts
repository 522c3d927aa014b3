import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OutboundRow } from '../../generated/control/types.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { cardUrl, closedPort, createOutbound, ok, snapshot, startLocalHub, toolNames, until } from './helpers.js';

/** Connections live in the data dir: a hub started on it again has them back and reconnects them. */

const TOKEN = randomBytes(16).toString('hex');
let remote: TestHub;
let guarded: string;
const dirs: string[] = [];

beforeAll(async () => {
  remote = await startTestHub();
  guarded = (await remote.inbounds.create({ name: 'guarded', description: 'needs a token', version: '1.0.0' })).id;
  await remote.inbounds.setAuth(guarded, TOKEN);
});
afterAll(async () => {
  await remote.dispose();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const byId = (rows: readonly OutboundRow[]): Map<string, OutboundRow> => new Map(rows.map((row) => [row.id, row]));

describe('outbound connections across a restart', () => {
  it('come back with their configuration, reconnect, and keep their tool names', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'a2a-hub-outbound-restart-'));
    dirs.push(dataDir);
    const first = await startLocalHub({ dataDir });
    let before: Map<string, OutboundRow>;
    let names: string[];
    let ids: { twinA: string; twinB: string; tokened: string; off: string };
    try {
      ids = {
        twinA: await createOutbound(first.url, 'twin', cardUrl(remote), {
          preset: 'echo',
          timeoutMs: 7000,
          skillOverrides: { chat: { description: 'Twin A.' } },
        }),
        twinB: await createOutbound(first.url, 'twin', cardUrl(remote)),
        tokened: await createOutbound(first.url, 'tokened', cardUrl(remote, guarded), { enabled: false }),
        off: await createOutbound(first.url, 'off', cardUrl(remote), { enabled: false, disabledSkills: ['chat'] }),
      };
      await ok(first.url, { action: 'outbound.setAuth', id: ids.tokened, token: TOKEN });
      await ok(first.url, { action: 'outbound.enable', id: ids.tokened });
      before = byId((await snapshot(first.url)).outbounds);
      names = await toolNames(first.url);
      expect(names).toEqual(expect.arrayContaining(['a2a__twin__chat', 'a2a__tokened__chat']));
      expect(names.some((name) => /^a2a__twin__chat_[0-9a-f]{6}$/.test(name))).toBe(true);
    } finally {
      await first.dispose();
    }

    const second = await startLocalHub({ dataDir });
    try {
      await until(
        async () => (await snapshot(second.url)).outbounds.filter((row) => row.state === 'connected').length === 3,
        'three connections to reconnect',
      );
      const after = byId((await snapshot(second.url)).outbounds);
      expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
      for (const [id, row] of before) expect(after.get(id)).toEqual(row);
      expect(after.get(ids.off)).toMatchObject({ state: 'disabled', disabledSkills: ['chat'] });
      expect(after.get(ids.twinA)).toMatchObject({ preset: 'echo', timeoutMs: 7000, skillOverrides: { chat: { description: 'Twin A.' } } });
      expect(await toolNames(second.url)).toEqual(names);
      expect(second.tools.get('a2a__twin__chat')?.connectionId).toBe(ids.twinA);
      // The token set before the restart is used after it.
      expect(await second.tools.call('a2a__tokened__chat', { prompt: 'again' })).toMatchObject({
        state: 'TASK_STATE_COMPLETED',
        text: 'echo: again',
      });
    } finally {
      await second.dispose();
    }
  });

  it('a hub starts without waiting for remotes: a dead one is connecting, then error', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'a2a-hub-outbound-restart-'));
    dirs.push(dataDir);
    const port = await closedPort();
    const first = await startLocalHub({ dataDir });
    let id: string;
    try {
      id = await createOutbound(first.url, 'dead', `http://127.0.0.1:${port}/a2a/default/agent-card.json`, { enabled: false });
      // A failed enable still enables: the connection is stored enabled, in state error.
      const enabled = await fetch(`${first.url}/a2a/api`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ action: 'outbound.enable', id }),
      });
      expect(enabled.status).toBe(409);
    } finally {
      await first.dispose();
    }
    const started = Date.now();
    const second = await startLocalHub({ dataDir });
    try {
      expect(Date.now() - started).toBeLessThan(2000);
      const row = (await snapshot(second.url)).outbounds.find((entry) => entry.id === id);
      expect(row).toMatchObject({ enabled: true });
      expect(['connecting', 'error']).toContain(row?.state);
      await until(
        async () => (await snapshot(second.url)).outbounds.find((entry) => entry.id === id)?.state === 'error',
        'the dead remote to be in error',
      );
    } finally {
      await second.dispose();
    }
  });
});
