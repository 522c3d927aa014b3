import { readFileSync } from 'node:fs';
import { posix } from 'node:path';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const root = import.meta.dirname;
const { layers } = JSON.parse(readFileSync(`${root}/layers.json`, 'utf8'));
/** How deep below a layer's folder the layering rule still reaches. */
const MAX_DEPTH = 5;

export default tseslint.config(
  { ignores: ['generated/**', 'node_modules/**', 'dist/**', '.a2a-hub/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', ignoreRestSiblings: true }],
    },
  },
  {
    files: ['**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      globals: { process: 'readonly', console: 'readonly' },
    },
  },
  // Where the layered code may not opt out of a rule: an exception is made here, in review, not
  // in a comment next to the code (test/architecture/layering.test.ts holds eslint to this).
  { files: ['src/**', 'conformance/**', 'codegen/**'], linterOptions: { noInlineConfig: true } },
  // Terminal and XML sanitising matches control characters on purpose.
  { files: ['conformance/report/common.ts'], rules: { 'no-control-regex': 'off' } },
  ...layeringRules(),
);

/**
 * layers.json as no-restricted-imports rules: one config block per source folder (and per file
 * that is a layer of its own), forbidding the relative paths that lead into the layers it may
 * not use. ESLint cannot resolve imports, so each forbidden layer becomes the specifier prefix
 * that reaches it from that folder, minus the more specific paths that belong to allowed layers.
 */
function layeringRules() {
  const paths = layers.flatMap((layer) => layer.paths.map((path) => ({ layer, path })));
  const allowedFrom = (layer) => new Set([layer.name, ...layer.may]);
  const specifierFor = (dir, target) => {
    const rel = posix.relative(dir, target);
    if (rel === '') return '.';
    return rel.startsWith('.') ? rel : `./${rel}`;
  };
  const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const forbidden = (dir, layer) => {
    const allowed = allowedFrom(layer);
    return paths
      .filter(({ layer: target }) => !allowed.has(target.name))
      .map(({ layer: target, path }) => {
        const exceptions = paths.filter(
          (other) => allowed.has(other.layer.name) && other.path !== path && other.path.startsWith(path) && path.endsWith('/'),
        );
        const unless = exceptions.map((other) => `(?!${escape(other.path.slice(path.length).replace(/\.ts$/, '.js'))}$)`).join('');
        let regex;
        if (path.endsWith('/*.ts')) regex = `^${escape(specifierFor(dir, path.slice(0, -'/*.ts'.length)))}/[^/]+\\.js$`;
        else if (path.endsWith('/')) regex = `^${escape(specifierFor(dir, path.slice(0, -1)))}/${unless}`;
        else regex = `^${escape(specifierFor(dir, path.replace(/\.ts$/, '.js')))}$`;
        return {
          regex,
          message: `layer ${layer.name} may import only ${[...allowed].join(', ')}; this reaches layer ${target.name} (${target.why}). See layers.json.`,
        };
      });
  };
  const blocks = [];
  const fileBlocks = [];
  for (const layer of layers) {
    for (const path of layer.paths) {
      if (path.endsWith('/*.ts')) {
        const dir = path.slice(0, -'/*.ts'.length);
        blocks.push({ files: [path], rules: { 'no-restricted-imports': ['error', { patterns: forbidden(dir, layer) }] } });
      } else if (path.endsWith('/')) {
        // The specifier that reaches a layer outside the folder depends only on how deep below
        // the folder a file is, so one block per depth covers folders that do not exist yet.
        for (let depth = 0; depth <= MAX_DEPTH; depth += 1) {
          const below = '*/'.repeat(depth);
          const dir = `${path}${'d/'.repeat(depth)}`.slice(0, -1);
          blocks.push({
            files: [`${path}${below}*.ts`, `${path}${below}*.js`],
            rules: { 'no-restricted-imports': ['error', { patterns: forbidden(dir, layer) }] },
          });
        }
      }
      if (!path.endsWith('/') && !path.endsWith('/*.ts')) {
        fileBlocks.push({
          files: [path],
          rules: { 'no-restricted-imports': ['error', { patterns: forbidden(posix.dirname(path), layer) }] },
        });
      }
    }
  }
  // Each block covers the files at one depth below one folder; a file that is a layer of its own
  // comes last, so its block replaces its folder's.
  return [...blocks, ...fileBlocks];
}
