import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteTaskStore } from '../../src/store/sqlite-store.js';
import { call, userMessage } from '../helpers/a2a-client.js';
import { chromiumAvailable, openPanel } from '../helpers/chromium.js';
import { controlAction, createInbound } from '../helpers/control.js';
import { faultyStore, type FaultyStore } from '../helpers/faulty-store.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';

/** What an operator sees of retention and of the task store's health in the panel. */
describe.skipIf(!chromiumAvailable())('the panel shows retention and whether the task store takes writes', () => {
  let hub: TestHub;
  let faulty: FaultyStore<SqliteTaskStore>;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    faulty = faultyStore(SqliteTaskStore.open(':memory:'));
    hub = await startTestHub({ taskStore: faulty.store });
    ({ browser, page } = await openPanel(hub.url, pageErrors));
  });

  afterAll(async () => {
    await browser?.close();
    await hub?.dispose();
    faulty?.store.close();
  });

  it('names an instance’s retention and counts the tasks a sweep deleted', async () => {
    const id = await createInbound(hub.url, 'kept', { retention: { maxTasks: 1, maxAgeMs: 86_400_000 } });
    for (let index = 0; index < 3; index += 1) await call(`${hub.url}/a2a/${id}`, 'SendMessage', { message: userMessage(`m${index}`) });
    expect((await controlAction(hub.url, { action: 'task.prune', id })).pruned).toBe(2);
    const row = page.getByTestId(`inbound-row-${id}`);
    await row.waitFor();
    expect(await row.getByTestId('inbound-retention').textContent()).toBe('keeps the newest 1, for 1 d terminal tasks');
    await page.getByTestId('metric-pruned').filter({ hasText: '2' }).waitFor();
    expect(await page.getByTestId('metric-pruned-last').textContent()).toMatch(/last sweep .*: 2/);
  });

  it('turns the task store red while writes fail, and back once they work', async () => {
    expect(await page.getByTestId('metric-store').textContent()).toBe('writable');
    faulty.fail();
    try {
      await fetch(hub.endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: userMessage('refused') } }),
      });
      await page.getByTestId('metric-store').filter({ hasText: 'out of space' }).waitFor();
      expect(await page.getByTestId('metric-store-failures').textContent()).toMatch(/SQLITE_FULL · \d+ writes failed/);
    } finally {
      faulty.heal();
    }
    await call(hub.endpoint, 'SendMessage', { message: userMessage('stored') });
    await page.getByTestId('metric-store').filter({ hasText: 'writable' }).waitFor();
    expect(pageErrors).toEqual([]);
  });
});
