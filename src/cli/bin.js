#!/usr/bin/env node
// The a2a-hub command. It loads the TypeScript sources through tsx so that a fresh clone
// runs with `npm ci` alone, with no build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('./main.ts');
process.exitCode = await main(process.argv);
