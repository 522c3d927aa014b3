import { execFileSync, spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, userMessage } from '../helpers/a2a-client.js';
import { REPO_ROOT } from '../helpers/paths.js';

/**
 * The npm package as a user gets it: `npm pack` on a copy of what a clone holds (prepack builds
 * dist/ there, so a stale or concurrent dist/ of this checkout plays no part), the tarball
 * installed into a fresh project, and the library, its declarations and the CLI used from there.
 */

const TSC = join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const SQLITE_ADDON = join('node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node');
const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
  version: string;
  exports: Record<string, string | Record<string, string>>;
};

/** What the tarball may hold: the manifest, README, LICENSE, docs, the bin and the build. */
const SHIPPED =
  /^(package\.json|README\.md|LICENSE|src\/cli\/bin\.js|docs\/[\w-]+\.md|dist\/(src|generated|conformance)\/[\w./-]+\.(js|d\.ts|json|html))$/;

let work = '';
let consumer = '';
let packed: { filename: string; size: number; files: { path: string }[] } | undefined;

function run(command: string, args: string[], cwd: string, timeout = 240_000): SpawnSyncReturns<string> {
  return spawnSync(command, args, { cwd, encoding: 'utf8', timeout, env: { ...process.env, NO_COLOR: '1' } });
}

function ran(result: SpawnSyncReturns<string>, what: string): string {
  expect(result.status, `${what} failed:\n${result.stdout}\n${result.stderr}`).toBe(0);
  return result.stdout;
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'a2a-hub-pack-'));
  // A clone's files (tracked, plus new ones not ignored) with this checkout's edits; node_modules
  // is this checkout's, for the build's TypeScript and types.
  const clone = join(work, 'clone');
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
  });
  for (const path of listed.split('\0').filter((path) => path !== '' && existsSync(join(REPO_ROOT, path)))) {
    mkdirSync(dirname(join(clone, path)), { recursive: true });
    copyFileSync(join(REPO_ROOT, path), join(clone, path));
  }
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(clone, 'node_modules'), 'dir');
  const output = ran(run('npm', ['pack', '--json', '--pack-destination', work], clone), 'npm pack');
  [packed] = JSON.parse(output.slice(output.indexOf('['))) as NonNullable<typeof packed>[];

  consumer = join(work, 'consumer');
  mkdirSync(consumer);
  writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  // Without install scripts: better-sqlite3's would build (or download) its addon, a minute or
  // more of compiling here. The addon this checkout's `npm ci` built is the same version for the
  // same Node, and is copied in instead.
  ran(
    run(
      'npm',
      ['install', join(work, packed?.filename ?? ''), '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund'],
      consumer,
    ),
    'npm install of the tarball',
  );
  const sqliteVersion = (root: string): string =>
    (JSON.parse(readFileSync(join(root, 'node_modules', 'better-sqlite3', 'package.json'), 'utf8')) as { version: string }).version;
  expect(sqliteVersion(consumer)).toBe(sqliteVersion(REPO_ROOT));
  mkdirSync(dirname(join(consumer, SQLITE_ADDON)), { recursive: true });
  copyFileSync(join(REPO_ROOT, SQLITE_ADDON), join(consumer, SQLITE_ADDON));
}, 420_000);

afterAll(() => {
  if (work !== '') rmSync(work, { recursive: true, force: true });
});

describe('the npm package', () => {
  it('holds the build, the bin, README, LICENSE and docs, and nothing of the repository besides', () => {
    const paths = (packed?.files ?? []).map((file) => file.path);
    expect(paths.filter((path) => !SHIPPED.test(path))).toEqual([]);
    const targets = Object.values(pkg.exports).flatMap((entry) => (typeof entry === 'string' ? [entry] : Object.values(entry)));
    for (const path of ['package.json', 'README.md', 'LICENSE', 'src/cli/bin.js', 'dist/src/control/panel.html', ...targets])
      expect(paths, path).toContain(path.replace(/^\.\//, ''));
  });

  it('installs only what runs: no TypeScript, tsx or code generator', () => {
    for (const name of ['typescript', 'tsx', 'esbuild', 'json-schema-to-typescript', '@apidevtools/json-schema-ref-parser', 'vitest'])
      expect(existsSync(join(consumer, 'node_modules', name)), `${name} was installed`).toBe(false);
  });

  it('runs from plain Node: every entry point of the exports map, and a hosted agent answering the client', () => {
    writeFileSync(
      join(consumer, 'plain.mjs'),
      `import { A2AClient, PresetRegistry, startHub, textOf } from 'a2a-hub';
import { A2AClient as ClientOnly } from 'a2a-hub/client';
import { ALL_CHECKS, runConformance } from 'a2a-hub/conformance';
import 'a2a-hub/types';
import { validateTask } from 'a2a-hub/validators';
import manifest from 'a2a-hub/package.json' with { type: 'json' };

const shout = {
  execute(request, events) {
    events.artifact({ name: 'shout', parts: request.text.toUpperCase() });
    events.complete();
    return Promise.resolve();
  },
};
const presets = new PresetRegistry();
presets.register({ id: 'shout', name: 'Shout', description: 'Answers in capitals.', executor: shout,
  skills: [{ id: 'chat', name: 'chat', description: 'Shouts back.', tags: ['demo'] }],
  inputModes: ['text/plain'], outputModes: ['text/plain'], extensions: [] });
const hub = await startHub({ presets, store: 'memory', port: 0, logLevel: 'warn' });
try {
  const shouter = (await hub.inbounds.create({ id: 'shouter', name: 'shouter', description: 'shouts', version: '1.0.0', preset: 'shout' }));
  const client = await A2AClient.connect(hub.url + shouter.endpointPath);
  const answer = await client.sendMessage({ message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'hello there' }] } });
  console.log(JSON.stringify({
    state: answer.task?.status.state,
    text: textOf(answer.task?.artifacts?.[0]),
    valid: validateTask(answer.task),
    oneClient: ClientOnly === A2AClient,
    suite: typeof runConformance === 'function' && ALL_CHECKS.length > 0,
    version: manifest.version,
  }));
} finally {
  await hub.close();
}
`,
    );
    const lines = ran(run(process.execPath, ['plain.mjs'], consumer, 60_000), 'node plain.mjs')
      .trim()
      .split('\n');
    expect(JSON.parse(lines.at(-1) ?? '')).toEqual({
      state: 'TASK_STATE_COMPLETED',
      text: 'HELLO THERE',
      valid: true,
      oneClient: true,
      suite: true,
      version: pkg.version,
    });
  });

  it('compiles with `tsc --init` settings and its declarations alone, and docs/server.md\'s "Plugging in your own agent" runs', async () => {
    const docs = readFileSync(join(REPO_ROOT, 'docs', 'server.md'), 'utf8');
    const snippet = /```ts\n([\s\S]*?)```/.exec(docs.slice(docs.indexOf('## Plugging in your own agent')))?.[1] ?? '';
    expect(snippet).toContain("from './src/index.js';");
    writeFileSync(join(consumer, 'shout.ts'), snippet.replace("from './src/index.js';", "from 'a2a-hub';"));
    ran(run(process.execPath, [TSC, '--init'], consumer, 60_000), 'tsc --init');
    ran(run(process.execPath, [TSC, '-p', '.'], consumer, 120_000), 'tsc');
    // A type error is one: the package's declarations are read, not taken as `any`.
    writeFileSync(
      join(consumer, 'wrong.ts'),
      "import { startHub } from 'a2a-hub';\nexport const port: string = (await startHub()).config.port;\n",
    );
    const wrong = run(process.execPath, [TSC, '-p', '.', '--noEmit'], consumer, 120_000);
    rmSync(join(consumer, 'wrong.ts'));
    expect(wrong.stdout).toMatch(/wrong\.ts\(2,14\): error TS2322: Type 'number' is not assignable to type 'string'/);

    const child = spawn(process.execPath, ['shout.js'], { cwd: consumer, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      let output = '';
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`shout.js printed no URL:\n${output}`)), 30_000);
        const read = (chunk: Buffer): void => {
          output += chunk.toString('utf8');
          const match = /shouter: (\S+)/.exec(output);
          if (match?.[1]) {
            clearTimeout(timer);
            resolve(match[1]);
          }
        };
        child.stdout.on('data', read);
        child.stderr.on('data', read);
        child.once('exit', (code) => reject(new Error(`shout.js exited (${code}):\n${output}`)));
      });
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/a2a\/shouter$/);
      const answer = await call(url, 'SendMessage', { message: userMessage('from the tarball') });
      expect(answer.task?.artifacts?.[0]?.parts[0]?.text).toBe('FROM THE TARBALL');
    } finally {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
    }
  });

  it('has the a2a-hub command, run from the build, without `generate`', () => {
    const help = ran(run('npx', ['a2a-hub', '--help'], consumer, 60_000), 'npx a2a-hub --help');
    expect(help).toMatch(/serve \[options\]/);
    expect(help).toMatch(/conform \[options\] <url>/);
    expect(help).not.toMatch(/\bgenerate\b/);
    const bin = join(consumer, 'node_modules', '.bin', 'a2a-hub');
    expect(ran(run(bin, ['--version'], consumer, 60_000), 'a2a-hub --version').trim()).toBe(pkg.version);
    const generate = run(bin, ['generate', '--check'], consumer, 60_000);
    expect(generate.status).toBe(2);
    expect(generate.stderr).toContain('runs from a clone of the repository');
  });
});
