#!/usr/bin/env node
// The a2a-hub command. In a clone of the repository it runs the TypeScript sources through tsx,
// so that `npm ci` alone is enough (no build step, and never a stale dist/). The npm package
// ships no sources, only the compiled dist/ (npm run build) that this then runs; tsx is a
// development dependency and is not installed there.
import { existsSync } from 'node:fs';
import { URL } from 'node:url';

const sources = new URL('./main.ts', import.meta.url);
let main;
if (existsSync(sources)) {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('./main.ts'));
} else {
  ({ main } = await import(new URL('../../dist/src/cli/main.js', import.meta.url).href));
}
process.exitCode = await main(process.argv);
