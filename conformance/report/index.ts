export { renderConsole, type ConsoleOptions } from './console.js';
export { renderJUnit } from './junit.js';
export { renderHtml } from './html.js';
export { renderJson } from './json.js';
export {
  BaselineError,
  TODO_REASON,
  baselineFromReport,
  loadBaseline,
  parseBaseline,
  type BaselineFile,
  type BaselineOptions,
} from './baseline.js';
export { AREAS, areaOf, summaryLine } from './common.js';
