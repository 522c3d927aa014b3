import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { skipNotice } from './skip-notice.js';

/** The Chromium the panel tests drive headless; they are skipped, saying so, where it is absent. */
export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function chromiumAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true;
  skipNotice(`the panel browser tests need Chromium at ${CHROMIUM} (apt-get install -y --no-install-recommends chromium)`);
  return false;
}

/**
 * A headless page on the hub's panel, once it is live. Page errors and console errors go into
 * `errors` for the test to assert empty; "Failed to load resource" is left out, as the browser
 * logs every non-2xx fetch and the panel tests cause some on purpose.
 */
export async function openPanel(hubUrl: string, errors: string[]): Promise<{ browser: Browser; page: Page }> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
  const page = await browser.newPage({ viewport: { width: 1366, height: 900 } });
  page.setDefaultTimeout(8000);
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
  page.on('console', (entry) => {
    if (entry.type() === 'error' && !entry.text().startsWith('Failed to load resource')) errors.push(`console: ${entry.text()}`);
  });
  const response = await page.goto(`${hubUrl}/a2a/panel`);
  if (response?.status() !== 200) throw new Error(`the panel answered ${response?.status() ?? 'nothing'}`);
  await page.getByTestId('live-status').and(page.locator('[data-state="live"]')).waitFor();
  return { browser, page };
}
