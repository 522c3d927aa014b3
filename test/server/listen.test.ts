import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteTaskStore } from '../../src/store/sqlite-store.js';
import { call, userMessage } from '../helpers/a2a-client.js';
import { startTestHub } from '../helpers/hub.js';

const dataDir = mkdtempSync(join(tmpdir(), 'a2a-hub-listen-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('a hub that cannot listen', () => {
  it('names the port in use and how to pick another, and lets go of its data dir', async () => {
    const first = await startTestHub();
    try {
      const port = Number(new URL(first.url).port);
      await expect(startTestHub({ port, dataDir })).rejects.toThrow(
        `cannot listen: port ${port} on 127.0.0.1 is already in use (another a2a-hub, or another program): ` +
          'pick another with `npm start -- --port N`, `a2a-hub serve --port N` or A2A_HUB_PORT=N (0 picks a free one)',
      );
      // The failed start released the database: a hub on a free port may use the same data dir.
      const second = await startTestHub({ dataDir });
      await second.close();
    } finally {
      await first.dispose();
    }
  });

  it('leaves a store it was given open: the caller owns it', async () => {
    const first = await startTestHub();
    const store = SqliteTaskStore.open(join(dataDir, 'given.sqlite'));
    try {
      await expect(startTestHub({ port: Number(new URL(first.url).port), taskStore: store })).rejects.toThrow('cannot listen');
      // Still open: a hub on a free port serves tasks from it.
      const second = await startTestHub({ taskStore: store });
      try {
        expect((await call(second.endpoint, 'SendMessage', { message: userMessage('still open') })).task?.status.state).toBe(
          'TASK_STATE_COMPLETED',
        );
      } finally {
        await second.dispose();
      }
    } finally {
      await first.dispose();
    }
  });

  it('names a host that is not an address of this machine', async () => {
    // 192.0.2.0/24 (TEST-NET-1) is reserved for documentation, so no machine has it.
    await expect(startTestHub({ host: '192.0.2.1', dataDir })).rejects.toThrow(
      'cannot listen on 192.0.2.1: it is not an address of this machine; use 127.0.0.1 (this machine only) or 0.0.0.0 (every interface)',
    );
  });
});
