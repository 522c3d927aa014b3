import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Task } from '../../generated/a2a/1.0/types.js';
import { userMessage } from '../helpers/a2a-client.js';
import { chromiumAvailable, openPanel } from '../helpers/chromium.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { PUSH_SECRET_MARKERS, queueDeliveries, seedPushConfig } from '../helpers/push-fixtures.js';
import { sendTask } from '../helpers/tasks.js';

/**
 * The panel's push view in a browser: the snapshot's push tile and its list of configs that
 * do not deliver, the task view with a task's configs and attempts, and its Retry and Delete
 * buttons. The configs are put into the hub's store as the push layer would, with secrets
 * that the page must never contain.
 */

const available = chromiumAvailable();

describe.skipIf(!available)('the push view of the control panel', () => {
  let hub: TestHub;
  let browser: Browser;
  let page: Page;
  let task: Task;
  const pageErrors: string[] = [];

  const message = () => page.getByTestId('action-message');
  const view = () => page.getByTestId('task-view');
  const configRow = (id: string) => view().getByTestId(`push-config-row-${id}`);

  beforeAll(async () => {
    hub = await startTestHub();
    // The seeded configs point at hosts that do not exist: with the dispatcher running, Retry
    // would start a real attempt whose failure races the assertions. The panel is under test here.
    await hub.push.dispatcher.close();
    task = await sendTask(hub.endpoint, { message: userMessage('push in the panel') });
    await seedPushConfig(hub.store, task.id, 'hook', { url: 'https://receiver.example/<b>hook</b>' });
    await seedPushConfig(hub.store, task.id, 'quiet', { url: 'https://quiet.example/hook', scheme: null });
    await queueDeliveries(hub.store, task, 'hook', 3);
    await hub.store.setPushHealth(task.id, 'hook', {
      state: 'failing',
      consecutiveFailures: 8,
      lastError: 'HTTP 503',
      lastAttemptAt: new Date().toISOString(),
    });
    const base = { taskId: task.id, configId: 'hook', deliveryId: 1, latencyMs: 41 } as const;
    await hub.store.recordAttempt(
      { ...base, at: '2026-01-01T00:00:01.000Z', attempt: 1, outcome: 'retry', status: 503, error: 'HTTP 503' },
      20,
    );
    await hub.store.recordAttempt(
      { ...base, at: '2026-01-01T00:00:02.000Z', attempt: 2, outcome: 'retry', error: 'timed out after 10000 ms' },
      20,
    );

    ({ browser, page } = await openPanel(hub.url, pageErrors));
  });

  afterAll(async () => {
    await browser?.close();
    await hub?.dispose();
  });

  it('shows the pending deliveries and the config that is failing, from the snapshot', async () => {
    expect(await page.getByTestId('metric-push-pending').textContent()).toBe('3');
    expect(await page.getByTestId('metric-push-health').textContent()).toBe('1 failing · 0 disabled');
    const unhealthy = page.getByTestId('push-unhealthy-row-hook');
    await unhealthy.waitFor();
    expect(await unhealthy.getByTestId('push-state').textContent()).toBe('failing');
    expect(await page.getByTestId('push-unhealthy-row-quiet').count()).toBe(0);
  });

  it("opens the task view from that list, with the task's configs and attempts, rendered as text", async () => {
    await page.getByTestId('push-unhealthy-row-hook').getByTestId('push-unhealthy-task').click();
    await view().waitFor();
    expect(await page.getByTestId('task-view-id').textContent()).toBe(task.id);
    await configRow('hook').waitFor();
    expect(await configRow('hook').getByTestId('push-url').textContent()).toBe('https://receiver.example/<b>hook</b>');
    expect(await configRow('hook').locator('b').count()).toBe(0);
    expect(await configRow('hook').getByTestId('push-auth').textContent()).toBe('Bearer');
    expect(await configRow('hook').getByTestId('push-state').textContent()).toBe('failing');
    expect(await configRow('hook').getByTestId('push-failures').textContent()).toBe('8');
    expect(await configRow('hook').getByTestId('push-last-error').textContent()).toBe('HTTP 503');
    expect(await configRow('hook').getByTestId('push-pending').textContent()).toBe('3');
    expect(await configRow('quiet').getByTestId('push-auth').textContent()).toBe('none');
    expect(await configRow('quiet').getByTestId('push-state').textContent()).toBe('active');

    const attempts = view().getByTestId('push-attempt-row');
    expect(await attempts.count()).toBe(2);
    expect(await attempts.nth(0).getByTestId('push-error').textContent()).toBe('timed out after 10000 ms');
    expect(await attempts.nth(0).getByTestId('push-status').textContent()).toBe('–');
    expect(await attempts.nth(1).getByTestId('push-status').textContent()).toBe('503');
  });

  it('shows no token, credentials or signing secret anywhere on the page', async () => {
    const html = await page.content();
    for (const marker of PUSH_SECRET_MARKERS) expect(html).not.toContain(marker);
  });

  it('retries the failing config: it is active again, with no failures, and its deliveries are due now', async () => {
    await configRow('hook').getByTestId('push-retry').click();
    await message().filter({ hasText: 'is active again: 3 pending deliveries due now' }).waitFor();
    await configRow('hook').getByTestId('push-state').filter({ hasText: 'active' }).waitFor();
    expect(await configRow('hook').getByTestId('push-failures').textContent()).toBe('0');
    expect((await hub.store.getPushConfig(task.id, 'hook'))?.health).toMatchObject({ state: 'active', consecutiveFailures: 0 });
    expect((await hub.store.dueDeliveries(Date.now(), 100)).some((delivery) => delivery.configId === 'hook')).toBe(true);
    await page.getByTestId('push-unhealthy-row-hook').waitFor({ state: 'detached' });
    expect(await page.getByTestId('metric-push-health').textContent()).toBe('every config delivering');
  });

  it('deletes a config after the confirmation dialog', async () => {
    page.once('dialog', (dialog) => void dialog.accept());
    await configRow('hook').getByTestId('push-delete').click();
    await message().filter({ hasText: 'push config "hook"' }).filter({ hasText: 'deleted with 3 pending deliveries' }).waitFor();
    await configRow('hook').waitFor({ state: 'detached' });
    expect(await hub.store.getPushConfig(task.id, 'hook')).toBeUndefined();
    expect(await configRow('quiet').count()).toBe(1);
    expect(await page.getByTestId('metric-push-pending').textContent()).toBe('0');
  });

  it('opens the view from the task table too, and closes it', async () => {
    await page.getByTestId('task-view-close').click();
    await view().waitFor({ state: 'hidden' });
    await page.getByTestId(`task-row-${task.id}`).getByTestId('task-view-open').click();
    await configRow('quiet').waitFor();
    expect(await page.getByTestId('task-view-id').textContent()).toBe(task.id);
    expect(pageErrors).toEqual([]);
  });
});
