import { writeFileSync } from 'node:fs';
import { it } from 'vitest';
import { runConformance } from '../conformance/suite.js';
import { startSdkAgent } from './interop/sdk-agent.js';
it('baseline', async () => {
  const agent = await startSdkAgent({ push: process.env.PUSH === '1' });
  const t = Date.now();
  const { report } = await runConformance(agent.url, { runs: 10, seed: 7, timeoutMs: 5000, cooperative: process.env.COOP === '1' });
  console.log('SUMMARY', JSON.stringify(report.summary), Date.now() - t, 'ms');
  writeFileSync(process.env.OUT ?? '/tmp/s/report.json', JSON.stringify(report, null, 1));
  await agent.close();
}, 300000);
