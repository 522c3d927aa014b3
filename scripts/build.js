// npm run build: compiles src/, generated/ and conformance/ into dist/ (JavaScript and .d.ts,
// tsconfig.build.json), then copies what tsc does not emit: generated/'s standalone validators
// (.js with their hand-written .d.ts) and the control panel page src/control/panel.html, which
// src/control/panel.ts reads beside itself at runtime. dist/ is what the npm package ships.
import { spawnSync } from 'node:child_process';
import { cpSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');

rmSync(dist, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const compiled = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
if (compiled.status !== 0) process.exit(compiled.status ?? 1);

cpSync(join(root, 'generated'), join(dist, 'generated'), {
  recursive: true,
  filter: (path) => statSync(path).isDirectory() || /\.(js|d\.ts|json)$/.test(path),
});
cpSync(join(root, 'src', 'control', 'panel.html'), join(dist, 'src', 'control', 'panel.html'));
