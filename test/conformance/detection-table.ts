import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../helpers/paths.js';
import { startTestHub } from '../helpers/hub.js';
import { detectAll, detectionTable, withDetectionTable } from './detection.js';

/* `npm run detection`: plants every fault in front of the hub, runs the suite under each profile, and writes the table into docs/conformance.md. */
const hub = await startTestHub();
try {
  const rows = await detectAll(hub.url, (found) =>
    process.stderr.write(`${found.map((row) => `${row.fault.id} ${row.binding}`).join('\n')}\n`),
  );
  const path = join(REPO_ROOT, 'docs', 'conformance.md');
  writeFileSync(path, withDetectionTable(readFileSync(path, 'utf8'), detectionTable(rows)));
  process.stdout.write(`${detectionTable(rows).split('\n').slice(-12).join('\n')}\n`);
} finally {
  await hub.dispose();
}
