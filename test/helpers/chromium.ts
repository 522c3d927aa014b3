import { existsSync } from 'node:fs';

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
  console.warn(`skipped: the panel browser tests need Chromium at ${CHROMIUM} (apt-get install -y --no-install-recommends chromium)`);
  return false;
}
