import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { generate } from './generate.js';
import { DEFAULT_OUT_DIR, DEFAULT_SPEC_DIR } from './paths.js';

/** `npm run generate [-- --check] [--spec-dir DIR] [--out-dir DIR]`; also behind `a2a-hub generate`. */
export async function runGenerate(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      check: { type: 'boolean', default: false },
      'spec-dir': { type: 'string' },
      'out-dir': { type: 'string' },
    },
  });
  const specDir = values['spec-dir'] === undefined ? DEFAULT_SPEC_DIR : resolve(values['spec-dir']);
  const outDir = values['out-dir'] === undefined ? DEFAULT_OUT_DIR : resolve(values['out-dir']);
  const report = await generate({ specDir, outDir, check: values.check });
  if (values.check) {
    if (report.stale.length === 0) {
      console.log(`generated/ is up to date with spec/ (${report.files.length} files)`);
      return 0;
    }
    for (const { path, problem } of report.stale) {
      const why = { differs: 'differs from what spec/ produces', missing: 'is missing', extra: 'is not produced by spec/' }[problem];
      console.error(`stale: generated/${path} ${why}`);
    }
    console.error('Run `npm run generate` and commit the result.');
    return 1;
  }
  console.log(`generated ${report.files.length} files; ${report.stale.length} changed`);
  for (const { path, problem } of report.stale) console.log(`  ${problem === 'extra' ? 'removed' : 'wrote'} generated/${path}`);
  return 0;
}

const isEntryPoint = process.argv[1] !== undefined && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'));
if (isEntryPoint) {
  runGenerate(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(error instanceof Error ? error.message : error);
      process.exit(2);
    },
  );
}
