import { readFileSync } from 'node:fs';
import { TASK_STATES, type TaskStateClass } from '../../generated/a2a/1.0/task-states.js';

/**
 * The control panel: one self-contained page (HTML, CSS and vanilla JS, no external resources,
 * no build step) kept in the sibling panel.html and read once at import time. The control router
 * serves it at /a2a/panel to loopback peers with a CSP that allows inline script and style and
 * connections to 'self' only. The page polls GET /a2a/api and /a2a/api/metrics, runs actions
 * through POST /a2a/api, and renders every value with textContent, never as HTML.
 *
 * The page does not spell the task states itself: they are written into it here, from the
 * generated state table, in the order active, interrupted, terminal.
 */
export const PANEL_HTML: string = withTaskStates(readFileSync(new URL('./panel.html', import.meta.url), 'utf8'));

function withTaskStates(template: string): string {
  const order: readonly TaskStateClass[] = ['active', 'interrupted', 'terminal'];
  const states = Object.values(TASK_STATES).sort((a, b) => order.indexOf(a.class) - order.indexOf(b.class));
  const fill = (page: string, placeholder: string, value: readonly string[]): string => {
    const marker = `${placeholder}[]`;
    if (!page.includes(marker)) throw new Error(`panel.html has no ${marker} placeholder`);
    return page.replace(marker, JSON.stringify(value));
  };
  const terminal = states.filter((state) => state.class === 'terminal').map((state) => state.name);
  return fill(
    fill(
      template,
      '/*@TASK_STATES@*/',
      states.map((state) => state.name),
    ),
    '/*@TERMINAL_STATES@*/',
    terminal,
  );
}
