import { readFileSync } from 'node:fs';

/**
 * The control panel: one self-contained page (HTML, CSS and vanilla JS, no external resources,
 * no build step) kept in the sibling panel.html and read once at import time. The control router
 * serves it at /a2a/panel to loopback peers with a CSP that allows inline script and style and
 * connections to 'self' only. The page polls GET /a2a/api and /a2a/api/metrics, runs actions
 * through POST /a2a/api, and renders every value with textContent, never as HTML.
 */
export const PANEL_HTML: string = readFileSync(new URL('./panel.html', import.meta.url), 'utf8');
