import { execFileSync, spawn, spawnSync, type ChildProcess, type SpawnSyncReturns } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, userMessage } from '../helpers/a2a-client.js';
import { REPO_ROOT } from '../helpers/paths.js';

/**
 * The npm package as a user gets it: `npm pack` on a copy of what a clone holds (prepack builds
 * dist/ there, so a stale or concurrent dist/ of this checkout plays no part), the tarball
 * installed into a fresh project, and the library, its declarations, every library example of
 * the docs (docs/server.md "Using a2a-hub as a library") and the CLI used from there.
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

/** A library example of the docs: a fenced ts or js block whose first line names its file (`// send.mjs`). */
interface Example {
  readonly doc: string;
  readonly name: string;
  readonly form: 'ts' | 'mjs';
  readonly code: string;
}

/** The examples of every doc in `docsDir`, as a reader sees them. */
function examplesIn(docsDir: string): Example[] {
  const examples: Example[] = [];
  for (const doc of readdirSync(docsDir)
    .filter((file) => file.endsWith('.md'))
    .sort()) {
    const text = readFileSync(join(docsDir, doc), 'utf8');
    for (const [, lang, code, name, form] of text.matchAll(/^```(ts|js)\n(\/\/ ([\w-]+)\.(ts|mjs)\n[\s\S]*?)^```$/gm)) {
      expect(lang, `${doc}: ${name}.${form} is in a ${lang} block`).toBe(form === 'ts' ? 'ts' : 'js');
      examples.push({ doc, name: name ?? '', form: form as Example['form'], code: code ?? '' });
    }
  }
  return examples;
}

/** The docs whose library snippets import from the package only (the others still show a clone's ./src paths). */
const LIBRARY_DOCS = ['server.md', 'client.md', 'conformance.md'];

/** What each example prints against the test agent (the hub's echo agent behind a bearer token), JavaScript and TypeScript alike. */
const PRINTS: Record<string, RegExp> = {
  send: /^a2a-hub echo over HTTP\+JSON at http:\S+\nTASK_STATE_COMPLETED echo: hello\n$/,
  stream: /TASK_STATE_COMPLETED\necho: hello, in chunks\n$/,
  'push-configs':
    /^build-42 https:\/\/hooks\.example\.com\/a2a\naudit https:\/\/hooks\.example\.com\/audit\nsigning secrets kept for: build-42, audit\n$/,
  'remote-turn': /TASK_STATE_COMPLETED echo: one turn\n$/,
  errors:
    /^TaskNotFoundError \(-32001\): task no-such-task was not found\nrefused by urlPolicy\.allowLoopback: http:\/\/127\.0\.0\.1:\d+\/\.well-known\/agent-card\.json\n$/,
  conform: /\nMUST failures: 0 · \d+ PASS, 0 FAIL, /,
};

/** Examples that serve until stopped, and the line that says where. */
const SERVES: Record<string, RegExp> = { shout: /shouter: (\S+)/ };

/** A child process that runs until stopped, once it printed a line matching `ready`. */
async function started(
  command: string,
  args: string[],
  cwd: string,
  ready: RegExp,
): Promise<{ child: ChildProcess; match: RegExpExecArray; stop: () => Promise<void> }> {
  const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  };
  let output = '';
  try {
    const match = await new Promise<RegExpExecArray>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${args.join(' ')} printed nothing like ${String(ready)}:\n${output}`)), 30_000);
      // Read everything, for as long as it runs: a full pipe would stop the child.
      const read = (chunk: Buffer): void => {
        output += chunk.toString('utf8');
        const found = ready.exec(output);
        if (found) {
          clearTimeout(timer);
          resolve(found);
        }
      };
      child.stdout?.on('data', read);
      child.stderr?.on('data', read);
      child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited (${code}):\n${output}`)));
    });
    return { child, match, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Runs a program to its end without blocking the event loop: the test agent, a child of this process, goes on being read meanwhile. */
function finished(
  command: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  timeout = 120_000,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], timeout });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, stdout, stderr }));
  });
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
      `import { A2AClient, A2AError, PresetRegistry, runRemoteTurn, startHub, textOf } from 'a2a-hub';
import { A2AClient as ClientOnly, A2AError as ClientError, runRemoteTurn as clientTurn } from 'a2a-hub/client';
import { ALL_CHECKS, renderConsole, renderHtml, renderJson, renderJUnit, runConformance } from 'a2a-hub/conformance';
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
    oneClient: ClientOnly === A2AClient && ClientError === A2AError && clientTurn === runRemoteTurn,
    suite: typeof runConformance === 'function' && ALL_CHECKS.length > 0,
    writers: [renderConsole, renderJson, renderJUnit, renderHtml].every((writer) => typeof writer === 'function'),
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
      writers: true,
      version: pkg.version,
    });
  });

  it('ships docs whose library examples come in both forms and import only the entry points of the exports map', () => {
    const examples = examplesIn(join(consumer, 'node_modules', 'a2a-hub', 'docs'));
    // The docs installed are the checkout's.
    expect(examples).toEqual(examplesIn(join(REPO_ROOT, 'docs')));
    for (const doc of LIBRARY_DOCS) expect(examples.filter((example) => example.doc === doc).length, doc).toBeGreaterThan(0);
    const names = [...new Set(examples.map((example) => example.name))];
    for (const name of names) {
      expect(
        examples.filter((example) => example.name === name).map((example) => example.form),
        `${name}: one TypeScript and one JavaScript form`,
      ).toEqual(['ts', 'mjs']);
    }
    for (const name of [...Object.keys(PRINTS), ...Object.keys(SERVES)]) expect(names, 'an example the test expects').toContain(name);
    const entryPoints = Object.keys(pkg.exports)
      .filter((key) => key !== './package.json')
      .map((key) => key.replace(/^\./, 'a2a-hub'));
    for (const example of examples) {
      const imported = [...example.code.matchAll(/(?:\bfrom |\bimport\()'([^']+)'/g)].map((match) => match[1] ?? '');
      expect(imported.length, `${example.name}.${example.form} imports something`).toBeGreaterThan(0);
      for (const specifier of imported)
        expect(
          specifier.startsWith('node:') || entryPoints.includes(specifier),
          `${example.name}.${example.form} imports ${specifier}`,
        ).toBe(true);
    }
    // No snippet of the library docs reaches into a clone's files.
    for (const doc of LIBRARY_DOCS) {
      const blocks = readFileSync(join(REPO_ROOT, 'docs', doc), 'utf8').match(/^```(?:ts|js)\n[\s\S]*?^```$/gm) ?? [];
      for (const block of blocks) expect(block, doc).not.toMatch(/\bfrom '\.\.?\//);
    }
  });

  it('compiles every TypeScript example with `tsc --init` settings and the declarations alone, and runs every example of the docs in both forms', async () => {
    const examples = examplesIn(join(consumer, 'node_modules', 'a2a-hub', 'docs'));
    for (const example of examples) writeFileSync(join(consumer, `${example.name}.${example.form}`), example.code);
    ran(run(process.execPath, [TSC, '--init'], consumer, 60_000), 'tsc --init');
    // What the docs ask of a program that uses Node's globals: @types/node, and "node" in the types tsc --init leaves empty.
    const tsconfig = readFileSync(join(consumer, 'tsconfig.json'), 'utf8');
    expect(tsconfig).toContain('"types": [],');
    writeFileSync(join(consumer, 'tsconfig.json'), tsconfig.replace('"types": [],', '"types": ["node"],'));
    mkdirSync(join(consumer, 'node_modules', '@types'), { recursive: true });
    symlinkSync(join(REPO_ROOT, 'node_modules', '@types', 'node'), join(consumer, 'node_modules', '@types', 'node'), 'dir');
    ran(run(process.execPath, [TSC, '-p', '.'], consumer, 120_000), 'tsc');
    // A type error is one: the package's declarations are read, not taken as `any`.
    writeFileSync(
      join(consumer, 'wrong.ts'),
      "import { startHub } from 'a2a-hub';\nexport const port: string = (await startHub()).config.port;\n",
    );
    const wrong = run(process.execPath, [TSC, '-p', '.', '--noEmit'], consumer, 120_000);
    rmSync(join(consumer, 'wrong.ts'));
    expect(wrong.stdout).toMatch(/wrong\.ts\(2,14\): error TS2322: Type 'number' is not assignable to type 'string'/);

    // The agent the client and conformance examples talk to: the hub's echo agent, from the package, behind a bearer token.
    writeFileSync(
      join(consumer, 'test-agent.mjs'),
      `import { startHub } from 'a2a-hub';
const hub = await startHub({ store: 'memory', port: 0, logLevel: 'error' });
await hub.inbounds.setAuth('default', 'example-token');
console.log('agent: ' + hub.url);
`,
    );
    const agent = await started(process.execPath, ['test-agent.mjs'], consumer, /agent: (\S+)/);
    try {
      const env = { ...process.env, NO_COLOR: '1', AGENT_URL: agent.match[1], AGENT_TOKEN: 'example-token' };
      for (const example of examples) {
        // The TypeScript form runs as tsc compiled it.
        const file = example.form === 'ts' ? `${example.name}.js` : `${example.name}.mjs`;
        const serves = SERVES[example.name];
        if (serves !== undefined) {
          const server = await started(process.execPath, [file], consumer, serves);
          try {
            const url = server.match[1] ?? '';
            expect(url, file).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/a2a\/shouter$/);
            const answer = await call(url, 'SendMessage', { message: userMessage(`from ${file}`) });
            expect(answer.task?.artifacts?.[0]?.parts[0]?.text).toBe(`FROM ${file.toUpperCase()}`);
          } finally {
            await server.stop();
          }
          continue;
        }
        for (const report of ['report.json', 'report.xml', 'report.html']) rmSync(join(consumer, report), { force: true });
        const result = await finished(process.execPath, [file], consumer, env);
        expect(result.status, `node ${file} failed:\n${result.stdout}\n${result.stderr}`).toBe(0);
        const prints = PRINTS[example.name];
        if (prints !== undefined) expect(result.stdout, file).toMatch(prints);
        if (example.name === 'conform') {
          const report = JSON.parse(readFileSync(join(consumer, 'report.json'), 'utf8')) as { summary: { mustFailures: number } };
          expect(report.summary.mustFailures).toBe(0);
          for (const other of ['report.xml', 'report.html']) expect(existsSync(join(consumer, other)), other).toBe(true);
        }
      }
    } finally {
      await agent.stop();
    }
  }, 420_000);

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
