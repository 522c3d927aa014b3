import { existsSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActionFailure, Metrics, Snapshot } from '../../generated/control/types.js';
import { timeOrderedId } from '../../src/tasks/ids.js';
import { userMessage } from '../helpers/a2a-client.js';
import { chromiumAvailable, openPanel } from '../helpers/chromium.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { post } from '../helpers/raw-http.js';
import { sendTask } from '../helpers/tasks.js';

const SCREENSHOT = join(REPO_ROOT, 'test-results', 'panel.png');
const TOKEN = 'panel-secret-3f9c2e71';

const available = chromiumAvailable();

describe.skipIf(!available)('the control panel in a browser', () => {
  let hub: TestHub;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];
  let inboundId = '';
  let cardPath = '';
  let outboundId = '';

  const snapshot = async (): Promise<Snapshot> => (await (await fetch(`${hub.url}/a2a/api`)).json()) as Snapshot;
  const message = () => page.getByTestId('action-message');
  const row = () => page.getByTestId(`inbound-row-${inboundId}`);

  beforeAll(async () => {
    hub = await startTestHub();
    ({ browser, page } = await openPanel(hub.url, pageErrors));
  });

  afterAll(async () => {
    await browser?.close();
    await hub?.dispose();
  });

  it('loads the snapshot and the preset roster, with no outbound connections', async () => {
    await page.getByTestId('inbound-row-default').waitFor();
    expect(await page.getByTestId('outbounds-empty').textContent()).toBe('no outbound connections');
    expect(await page.getByLabel('Preset', { exact: true }).inputValue()).toBe('echo');
    expect(await page.getByTestId('metric-requests').textContent()).toMatch(/^\d+$/);
  });

  it('shows the API message and its violations when an action is refused', async () => {
    await page.getByLabel('Name', { exact: true }).fill('refused');
    await page.getByLabel('Description', { exact: true }).fill('bad path');
    await page.getByLabel('Endpoint path (optional)').fill('no-leading-slash');
    await page.getByTestId('create-submit').click();
    await message().and(page.locator('[data-status="error"]')).waitFor();
    expect(await page.getByTestId('action-violations').textContent()).toContain('endpointPath');
    expect((await snapshot()).inbounds.map((inbound) => inbound.name)).not.toContain('refused');
  });

  it('creates an inbound through the form and lists it, rendering its data as text', async () => {
    await page.getByLabel('Name', { exact: true }).fill('panel-test');
    await page.getByLabel('Description', { exact: true }).fill('<b>made</b> by the browser test');
    await page.getByLabel('Endpoint path (optional)').fill('');
    await page.getByTestId('create-submit').click();
    await message().and(page.locator('[data-status="success"]')).waitFor();
    expect(await message().textContent()).toContain('inbound server "panel-test" created');

    const created = (await snapshot()).inbounds.find((inbound) => inbound.name === 'panel-test');
    expect(created).toBeDefined();
    inboundId = created?.id ?? '';
    cardPath = created?.cardPath ?? '';
    await row().waitFor();
    expect(await row().getByTestId('inbound-status').textContent()).toBe('enabled');
    expect(await row().getByTestId('inbound-auth').textContent()).toBe('off');
    expect(await row().getByTestId('inbound-card-link').getAttribute('href')).toBe(cardPath);
    expect(await row().getByTestId('inbound-jsonrpc').textContent()).toBe(`${hub.url}/a2a/${inboundId}`);
    expect(await row().getByTestId('inbound-rest').textContent()).toBe(`${hub.url}/a2a/${inboundId}`);
    expect(await row().getByTestId('inbound-description').textContent()).toContain('<b>made</b> by the browser test');
    expect(await row().locator('b').count()).toBe(0);
  });

  it('sends a test message and shows the task reaching TASK_STATE_COMPLETED', async () => {
    expect(await page.getByLabel('Send to').inputValue()).toBe(inboundId);
    await page.getByLabel('Message text').fill('hello from the panel');
    await page.getByTestId('send-test-submit').click();
    await message().and(page.locator('[data-status="success"]')).waitFor();
    expect(await message().textContent()).toContain(`test message to "panel-test" ended TASK_STATE_COMPLETED`);

    // The panel flashes the message before it renders the result box (after its refresh): wait for the box.
    await page.getByTestId('test-result').and(page.locator('[data-task-id]')).waitFor();
    const taskId = await page.getByTestId('test-result').getAttribute('data-task-id');
    expect(taskId).toMatch(/\S/);
    expect(await page.getByTestId('test-result').getAttribute('data-state')).toBe('TASK_STATE_COMPLETED');
    const taskRow = page.getByTestId(`task-row-${taskId}`);
    await taskRow.locator('[data-state="TASK_STATE_COMPLETED"]').waitFor();
    expect(await taskRow.getByTestId('task-link').getAttribute('href')).toBe(`/a2a/api/task?id=${encodeURIComponent(taskId ?? '')}`);
    const task = (await (await fetch(`${hub.url}/a2a/api/task?id=${encodeURIComponent(taskId ?? '')}`)).json()) as {
      serverId: string;
      status: { state: string };
    };
    expect(task).toMatchObject({ serverId: inboundId, status: { state: 'TASK_STATE_COMPLETED' } });
  });

  it('shows task and context ids by their random tail, the whole id in the tooltip, and copies it whole', async () => {
    // Ids of the same millisecond share their first 13 characters, the time of a UUIDv7.
    const stamp = Date.now();
    const contexts = [timeOrderedId(stamp), timeOrderedId(stamp)];
    const tasks = await Promise.all(
      contexts.map((contextId) => sendTask(hub.endpoint, { message: userMessage('same millisecond', { contextId }) })),
    );
    const shown: string[] = [];
    for (const task of tasks) {
      const taskRow = page.getByTestId(`task-row-${task.id}`);
      await taskRow.waitFor();
      const link = taskRow.getByTestId('task-link');
      expect(await link.textContent()).toBe(`…${task.id.slice(-8)}`);
      expect(await link.getAttribute('title')).toBe(task.id);
      const context = taskRow.getByTestId('task-context');
      expect(await context.getAttribute('title')).toBe(task.contextId);
      shown.push((await context.textContent()) ?? '');
    }
    expect(shown).toEqual(contexts.map((id) => `…${id.slice(-8)}`));
    expect(shown[0]).not.toBe(shown[1]);

    const first = tasks[0]?.id ?? '';
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: hub.url });
    await page.getByTestId(`task-row-${first}`).getByTestId('copy-task-id').click();
    await message().filter({ hasText: first }).waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(first);
  });

  it('counts requests in the Requests tile as ok and not ok, and names requests refused before a method was read', async () => {
    expect((await post(hub.endpoint, '{ not json')).status).toBe(200);
    const metrics = (await (await fetch(`${hub.url}/a2a/api/metrics`)).json()) as Metrics;
    const counts = (outcomes: Metrics['requests'][string] = {}) =>
      Object.entries(outcomes).map(([outcome, n]) => [outcome, n ?? 0] as const);
    const sum = (entries: readonly (readonly [string, number])[]) => entries.reduce((total, [, n]) => total + n, 0);
    const outcomes = Object.values(metrics.requests).flatMap((byOutcome) => counts(byOutcome));
    const isOk = (outcome: string) => outcome === 'ok' || outcome === 'notification';
    const ok = sum(outcomes.filter(([outcome]) => isOk(outcome)));
    const notOk = sum(outcomes.filter(([outcome]) => !isOk(outcome)));
    expect(notOk).toBeGreaterThan(0);
    await page
      .getByTestId('metric-requests')
      .filter({ hasText: new RegExp(`^${ok + notOk}$`) })
      .waitFor();
    expect(await page.getByTestId('metric-requests-outcomes').textContent()).toBe(`${ok} ok · ${notOk} not ok`);
    const methods = (await page.getByTestId('metric-requests-methods').textContent()) ?? '';
    const countOf = (method: string) => sum(counts(metrics.requests[method]));
    expect(methods).toContain(`SendMessage ${countOf('SendMessage')}`);
    expect(methods).toContain(`no method read ${countOf('-')}`);
  });

  it('sets a bearer token without ever showing it back', async () => {
    await page.getByLabel('Server', { exact: true }).selectOption(inboundId);
    await page.getByLabel('Bearer token', { exact: true }).fill(TOKEN);
    await page.getByTestId('token-set').click();
    await message().filter({ hasText: 'bearer auth enabled' }).waitFor();
    await row().getByTestId('inbound-auth').filter({ hasText: 'on' }).waitFor();
    expect(await page.getByLabel('Bearer token', { exact: true }).inputValue()).toBe('');
    expect(await page.content()).not.toContain(TOKEN);
  });

  it('edits the inbound: a refused change keeps the editor open, a saved one moves the card, and the token is cleared and set there', async () => {
    await row().getByTestId('inbound-edit').click();
    const editor = page.getByTestId('edit-inbound-form');
    await editor.waitFor();
    expect(await page.getByTestId('edit-id').textContent()).toBe(inboundId);
    expect(await page.getByLabel('Agent name').inputValue()).toBe('panel-test');
    expect(await page.getByLabel('Endpoint path', { exact: true }).inputValue()).toBe(`/a2a/${inboundId}`);
    expect(await page.getByLabel('Agent preset').inputValue()).toBe('echo');
    expect(await page.getByTestId('edit-auth').textContent()).toBe('on');

    await page.getByLabel('Endpoint path', { exact: true }).fill('no-leading-slash');
    await page.getByTestId('edit-save').click();
    await message().and(page.locator('[data-status="error"]')).waitFor();
    expect(await page.getByTestId('action-violations').textContent()).toContain('endpointPath');
    expect(await editor.isVisible()).toBe(true);
    expect((await snapshot()).inbounds.find((inbound) => inbound.id === inboundId)?.endpointPath).toBe(`/a2a/${inboundId}`);

    await page.getByLabel('Agent name').fill('panel-edited');
    await page.getByLabel('Agent version').fill('0.2.0');
    await page.getByLabel('Endpoint path', { exact: true }).fill('/agents/panel-edited');
    await page.getByTestId('edit-save').click();
    await message().filter({ hasText: 'inbound server "panel-edited" updated' }).waitFor();
    await editor.waitFor({ state: 'hidden' });
    await row().getByTestId('inbound-name').filter({ hasText: 'panel-edited' }).waitFor();
    const edited = (await snapshot()).inbounds.find((inbound) => inbound.id === inboundId);
    expect(edited).toMatchObject({ name: 'panel-edited', version: '0.2.0', endpointPath: '/agents/panel-edited', preset: 'echo' });
    expect(edited?.description).toContain('made</b> by the browser test');
    expect((await fetch(`${hub.url}${cardPath}`)).status).toBe(404);
    cardPath = edited?.cardPath ?? '';
    expect(await row().getByTestId('inbound-card-link').getAttribute('href')).toBe(cardPath);
    expect(await (await fetch(`${hub.url}${cardPath}`)).json()).toMatchObject({ name: 'panel-edited', version: '0.2.0' });

    await row().getByTestId('inbound-edit').click();
    await page.getByTestId('edit-clear-token').click();
    await message().filter({ hasText: 'bearer auth cleared' }).waitFor();
    await page.getByTestId('edit-auth').filter({ hasText: 'off' }).waitFor();
    await row().getByTestId('inbound-auth').filter({ hasText: 'off' }).waitFor();
    await page.getByLabel('New bearer token').fill(TOKEN);
    await page.getByTestId('edit-save').click();
    await message().filter({ hasText: 'bearer auth enabled' }).waitFor();
    await editor.waitFor({ state: 'hidden' });
    await row().getByTestId('inbound-auth').filter({ hasText: 'on' }).waitFor();
    expect(await page.content()).not.toContain(TOKEN);
  });

  it('sets the JSON-RPC and REST paths and the tenants in the editor, shows them in the row, and an emptied field goes back to the default', async () => {
    const editor = page.getByTestId('edit-inbound-form');
    const inbound = async () => (await snapshot()).inbounds.find((candidate) => candidate.id === inboundId);
    await row().getByTestId('inbound-edit').click();
    await editor.waitFor();
    expect(await page.getByLabel('JSON-RPC path', { exact: true }).inputValue()).toBe('');
    expect(await page.getByLabel('REST path', { exact: true }).inputValue()).toBe('');
    await page.getByLabel('JSON-RPC path', { exact: true }).fill('/agents/panel-edited/jsonrpc');
    await page.getByLabel('REST path', { exact: true }).fill('/v1/panel-edited');
    await page.getByTestId('edit-save').click();
    await editor.waitFor({ state: 'hidden' });
    await row()
      .getByTestId('inbound-rest')
      .filter({ hasText: `${hub.url}/v1/panel-edited` })
      .waitFor();
    expect(await row().getByTestId('inbound-jsonrpc').textContent()).toBe(`${hub.url}/agents/panel-edited/jsonrpc`);
    expect(await inbound()).toMatchObject({ jsonRpcPath: '/agents/panel-edited/jsonrpc', restPath: '/v1/panel-edited' });

    await row().getByTestId('inbound-edit').click();
    expect(await page.getByLabel('REST path', { exact: true }).inputValue()).toBe('/v1/panel-edited');
    await page.getByLabel('REST path', { exact: true }).fill('');
    await page.getByLabel('Tenants', { exact: true }).fill('research, ops');
    await page.getByTestId('edit-save').click();
    await editor.waitFor({ state: 'hidden' });
    await row()
      .getByTestId('inbound-rest')
      .filter({ hasText: `${hub.url}/agents/panel-edited` })
      .waitFor();
    expect(await row().getByTestId('inbound-tenants').textContent()).toBe('tenants: research, ops');
    expect(await inbound()).toMatchObject({
      jsonRpcPath: '/agents/panel-edited/jsonrpc',
      restPath: '/agents/panel-edited',
      tenants: ['research', 'ops'],
    });

    await row().getByTestId('inbound-edit').click();
    expect(await page.getByLabel('Tenants', { exact: true }).inputValue()).toBe('research, ops');
    await page.getByLabel('Tenants', { exact: true }).fill('');
    await page.getByTestId('edit-save').click();
    await editor.waitFor({ state: 'hidden' });
    await row().getByTestId('inbound-tenants').waitFor({ state: 'detached' });
    expect(await inbound()).not.toHaveProperty('tenants');
  });

  it('disables the inbound: shown disabled, and its card URL answers 404', async () => {
    expect((await fetch(`${hub.url}${cardPath}`)).status).toBe(200);
    await row().getByTestId('inbound-disable').click();
    await message().filter({ hasText: `inbound server "panel-edited" disabled` }).waitFor();
    await row().getByTestId('inbound-status').filter({ hasText: 'disabled' }).waitFor();
    await row().getByTestId('inbound-enable').waitFor();
    expect((await fetch(`${hub.url}${cardPath}`)).status).toBe(404);
  });

  it('an editor open while the row disables the server follows it, so saving does not enable it again', async () => {
    await row().getByTestId('inbound-enable').click();
    await row().getByTestId('inbound-status').filter({ hasText: 'enabled' }).waitFor();
    await row().getByTestId('inbound-edit').click();
    expect(await page.getByLabel('Enabled', { exact: true }).isChecked()).toBe(true);
    await row().getByTestId('inbound-disable').click();
    await row().getByTestId('inbound-status').filter({ hasText: 'disabled' }).waitFor();
    await page.getByLabel('Enabled', { exact: true }).and(page.locator(':not(:checked)')).waitFor();
    await page.getByLabel('Agent description').fill('described again');
    await page.getByTestId('edit-save').click();
    await message().filter({ hasText: 'inbound server "panel-edited" updated' }).waitFor();
    expect((await snapshot()).inbounds.find((inbound) => inbound.id === inboundId)).toMatchObject({
      enabled: false,
      description: 'described again',
    });
  });

  it('previews a remote card and connects to it; the row shows it connected with its tools', async () => {
    const cardUrl = `${hub.url}/a2a/default/agent-card.json`;
    await page.getByLabel('Agent card URL').fill(cardUrl);
    await page.getByTestId('connect-preview').click();
    await page.getByTestId('connect-preview-skills').filter({ hasText: 'chat' }).waitFor();
    expect((await snapshot()).outbounds).toEqual([]);
    await page.getByLabel('Connection name').fill('self-echo');
    await page.getByTestId('connect-submit').click();
    await message().filter({ hasText: 'outbound connection "self-echo" created' }).waitFor();
    const created = (await snapshot()).outbounds.find((outbound) => outbound.name === 'self-echo');
    expect(created?.state).toBe('connected');
    outboundId = created?.id ?? '';
    await page.getByTestId(`outbound-row-${outboundId}`).getByTestId('outbound-state').filter({ hasText: 'connected' }).waitFor();
  });

  it('creates a relay instance in front of that connection', async () => {
    expect(await page.getByTestId('create-relay').isVisible()).toBe(false);
    await page.getByLabel('Preset', { exact: true }).selectOption('relay');
    expect(await page.getByTestId('create-relay').isVisible()).toBe(true);
    await page.getByTestId('create-relay').selectOption(outboundId);
    await page.getByLabel('Name', { exact: true }).fill('panel-relay');
    await page.getByLabel('Description', { exact: true }).fill('relays to self-echo');
    await page.getByTestId('create-submit').click();
    await message().filter({ hasText: 'inbound server "panel-relay" created' }).waitFor();
    const relay = (await snapshot()).inbounds.find((inbound) => inbound.name === 'panel-relay');
    expect(relay).toMatchObject({ preset: 'relay', relayTo: outboundId });
    expect(
      await page
        .getByTestId(`inbound-row-${relay?.id ?? ''}`)
        .getByTestId('inbound-relay-to')
        .textContent(),
    ).toBe(`→ ${outboundId}`);
    await page.getByLabel('Preset', { exact: true }).selectOption('echo');
    expect(await page.getByTestId('create-relay').isVisible()).toBe(false);
  });

  it('edits the relay instance: the editor shows what it relays to, and moving it to echo clears that', async () => {
    const relay = (await snapshot()).inbounds.find((inbound) => inbound.name === 'panel-relay');
    const relayRow = page.getByTestId(`inbound-row-${relay?.id ?? ''}`);
    await relayRow.getByTestId('inbound-edit').click();
    expect(await page.getByLabel('Agent preset').inputValue()).toBe('relay');
    expect(await page.getByTestId('edit-relay').isVisible()).toBe(true);
    expect(await page.getByTestId('edit-relay').inputValue()).toBe(outboundId);
    await page.getByLabel('Agent preset').selectOption('echo');
    expect(await page.getByTestId('edit-relay').isVisible()).toBe(false);
    await page.getByTestId('edit-save').click();
    await message().filter({ hasText: 'inbound server "panel-relay" updated' }).waitFor();
    await relayRow.getByTestId('inbound-relay-to').waitFor({ state: 'detached' });
    const moved = (await snapshot()).inbounds.find((inbound) => inbound.id === relay?.id);
    expect(moved?.preset).toBe('echo');
    expect(moved?.relayTo).toBeUndefined();
  });

  it('disables the connection from its row', async () => {
    const outboundRow = page.getByTestId(`outbound-row-${outboundId}`);
    await outboundRow.getByTestId('outbound-disable').click();
    await message().filter({ hasText: 'disabled' }).waitFor();
    await outboundRow.getByTestId('outbound-state').filter({ hasText: 'disabled' }).waitFor();
    expect((await snapshot()).outbounds[0]?.state).toBe('disabled');
  });

  it('saves a screenshot of the page as a test artifact', async () => {
    mkdirSync(join(REPO_ROOT, 'test-results'), { recursive: true });
    await page.evaluate('window.scrollTo(0, 0)');
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    expect(existsSync(SCREENSHOT)).toBe(true);
    expect(statSync(SCREENSHOT).size).toBeGreaterThan(0);
  });

  it('removes the inbound after the confirmation dialog', async () => {
    page.once('dialog', (dialog) => void dialog.accept());
    await row().getByTestId('inbound-remove').click();
    await message().filter({ hasText: `inbound server "panel-edited" removed` }).waitFor();
    await row().waitFor({ state: 'detached' });
    expect((await snapshot()).inbounds.map((inbound) => inbound.id)).not.toContain(inboundId);
    const failure = (await (await fetch(`${hub.url}/a2a/api/card?id=${inboundId}`)).json()) as ActionFailure;
    expect(failure.ok).toBe(false);
  });

  it('raised no script errors and no CSP violations', () => {
    expect(pageErrors).toEqual([]);
  });
});
