import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, CHROMIUM, CHROMIUM_FLAGS } from '../helpers/chromium.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { storeOnMissingPreset } from '../helpers/missing-preset.js';

describe.skipIf(!chromiumAvailable())('the panel shows an instance this hub cannot run', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'a2a-hub-panel-unavailable-'));
  let hub: TestHub | undefined;
  let browser: Browser | undefined;
  afterAll(async () => {
    await browser?.close();
    await hub?.dispose();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('marks its row unavailable with the reason, and clears the mark once inbound.update gives it a registered preset', async () => {
    const [stored] = await storeOnMissingPreset(dataDir, ['shouter']);
    hub = await startTestHub({ dataDir });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
    const page = await browser.newPage();
    page.setDefaultTimeout(8000);
    await page.goto(`${hub.url}/a2a/panel`);
    const row = page.getByTestId(`inbound-row-${stored?.id ?? ''}`);
    const mark = row.getByTestId('inbound-unavailable');
    await mark.waitFor();
    expect(await mark.textContent()).toMatch(/^unavailable.*preset "shout" is not registered in this hub/);
    expect(await page.getByTestId('inbound-row-default').getByTestId('inbound-unavailable').count()).toBe(0);

    await hub.inbounds.update(stored?.id ?? '', { preset: 'echo' });
    await mark.waitFor({ state: 'detached' });
    expect(await row.getByTestId('inbound-status').textContent()).toBe('enabled');
  });
});
