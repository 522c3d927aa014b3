import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../codegen/paths.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';

/*
 * Every curl of the README and the docs, run as written against a hub on its defaults: the
 * documented host becomes the test hub's, ids the docs show as placeholders are bound to the ids
 * the hub really answered (from the answer a doc prints after a command: `# {"id":"reports-1a2b3c4d"}`),
 * and each must answer 2xx, or the status its own comment names (`# 405`). A doc whose curl stops
 * working fails here, not in a user's terminal.
 */

/** The remote agents' cards the docs name, which a second hub plays. */
const REMOTE_CARDS = [
  'https://remote.example/a2a/x/agent-card.json',
  'https://agents.example/a2a/research/agent-card.json',
  'https://partner.example/a2a/agent-card.json',
];

/**
 * Docs whose curls are not run, with the reason: worker.md's walkthrough is three terminals at
 * once (a worker's feed, a waiting client, the worker's reports), which test/server/gateway-worker.test.ts
 * runs with seed 004's example.
 */
const NOT_RUN: Readonly<Record<string, string>> = { 'docs/worker.md': 'a walkthrough of concurrent terminals' };

/** The README and every doc, whose curls run in order within each, each doc against its own fresh hub. */
const DOCS = [
  'README.md',
  ...readdirSync(join(REPO_ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
].filter((file) => NOT_RUN[file] === undefined && curlsOf(readFileSync(join(REPO_ROOT, file), 'utf8')).length > 0);

const CURL = spawnSync('curl', ['--version']).status === 0;

export interface DocCurl {
  readonly line: number;
  readonly command: string;
  /** The status a trailing `# NNN` comment names, else any 2xx. */
  readonly status?: number;
  /** The comment lines after it: the answer the doc shows. */
  readonly shown: string;
}

/** The curl commands of a markdown file's sh blocks, with their continuation lines and multi-line quoted bodies. */
export function curlsOf(markdown: string): DocCurl[] {
  const lines = markdown.split('\n');
  const found: { line: number; command: string[]; shown: string[] }[] = [];
  let inBlock = false;
  let open: { line: number; command: string[]; shown: string[] } | undefined;
  const complete = (text: string): boolean => !text.endsWith('\\') && (text.match(/'/g)?.length ?? 0) % 2 === 0;
  lines.forEach((raw, index) => {
    if (/^```/.test(raw)) {
      inBlock = !inBlock && /^```(sh|bash|shell)\s*$/.test(raw);
      open = undefined;
      return;
    }
    if (!inBlock) return;
    const pending = open?.command;
    if (pending !== undefined && !complete(pending.join('\n'))) {
      pending.push(raw);
      return;
    }
    if (/^\s*curl\s/.test(raw)) {
      open = { line: index + 1, command: [raw], shown: [] };
      found.push(open);
    } else if (/^\s*#/.test(raw) && open !== undefined) open.shown.push(raw.replace(/^\s*#\s?/, ''));
    else if (raw.trim() !== '') open = undefined;
  });
  return found.map(({ line, command, shown }) => {
    const text = command.join('\n');
    const last = command[command.length - 1] ?? '';
    // `curl … # 405` on the command's last line, or a shown answer that starts with its status (`# 400 {…}`).
    const status = /\s#\s*(\d{3})\b/.exec(last)?.[1] ?? /^(\d{3})\s/.exec(shown[0] ?? '')?.[1];
    return { line, command: text, shown: shown.join('\n'), ...(status === undefined ? {} : { status: Number(status) }) };
  });
}

/** `"id":"value"` pairs of the ids a shown answer names (placeholders, as the doc writes them); a bare `…` names nothing. */
function shownIds(shown: string): [string, string][] {
  return [...shown.matchAll(/"(id|taskId|contextId)":"([^"]+)"/g)]
    .map((match): [string, string] => [match[1] ?? '', match[2] ?? ''])
    .filter(([, value]) => value !== '…');
}

/** The first string value of member `name` in `value`, depth first: where a shown id sits in the real answer. */
function firstString(value: unknown, name: string): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Record<string, unknown>;
  if (typeof record[name] === 'string') return record[name];
  for (const child of Object.values(record)) {
    const found = firstString(child, name);
    if (found !== undefined) return found;
  }
  return undefined;
}

interface Ran {
  readonly status: number;
  readonly body: string;
  readonly exit: number | null;
}

/** Runs one documented command in bash, its curl writing the body to a file and the status to stdout (asynchronously: the hub answers in this process). */
async function runCurl(command: string, env: Record<string, string>, work: string): Promise<Ran> {
  const bodyFile = join(work, 'body');
  rmSync(bodyFile, { force: true });
  const script = `curl() { command curl "$@" --max-time 5 -o '${bodyFile}' -w '%{http_code}'; }\n${command}`;
  const { stdout, exit } = await new Promise<{ stdout: string; exit: number | null }>((resolve) => {
    execFile('bash', ['-c', script], { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 20_000 }, (error, out) => {
      resolve({ stdout: out, exit: error === null ? 0 : typeof error.code === 'number' ? error.code : null });
    });
  });
  // A command that never reached the hub wrote no body.
  const body = existsSync(bodyFile) ? readFileSync(bodyFile, 'utf8') : '';
  return { status: Number(stdout.trim().slice(-3)), body, exit };
}

/** The JSON of an answer; with `-i` the headers come first. */
function jsonOf(body: string): unknown {
  const text = body.includes('\r\n\r\n') && /^HTTP\//.test(body) ? body.slice(body.indexOf('\r\n\r\n') + 4) : body;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

describe.skipIf(!CURL).each(DOCS)('the curls of %s', (file) => {
  let hub: TestHub;
  /** Plays the remote agents the docs name (remote.example), which a test cannot reach. */
  let remote: TestHub;
  let work = '';
  beforeAll(async () => {
    [hub, remote] = await Promise.all([startTestHub(), startTestHub()]);
    work = mkdtempSync(join(tmpdir(), 'a2a-hub-curls-'));
  });
  afterAll(async () => {
    await Promise.all([hub.dispose(), remote.dispose()]);
    rmSync(work, { recursive: true, force: true });
  });

  it('answer as the doc says, in order', { timeout: 120_000 }, async () => {
    const curls = curlsOf(readFileSync(join(REPO_ROOT, file), 'utf8'));
    const bound = new Map<string, string>([
      ['http://127.0.0.1:3080', hub.url],
      ['localhost:3080', hub.url.replace(/^http:\/\//, '')],
      ...REMOTE_CARDS.map((card): [string, string] => [card, `${remote.url}/a2a/default/agent-card.json`]),
      ['http://127.0.0.1:3081', remote.url],
    ]);
    // `VAR=value npx a2a-hub serve`: the hub the doc starts has that variable.
    for (const [, name, value] of readFileSync(join(REPO_ROOT, file), 'utf8').matchAll(/^(\w+)=(\S+) npx a2a-hub serve/gm))
      if (name !== undefined && value !== undefined) process.env[name] = value;
    // A task to name where a doc writes `$TASK`.
    const seeded = await fetch(`${hub.endpoint}/message:send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ message: { messageId: 'docs-seed', role: 'ROLE_USER', parts: [{ text: 'hi\n::input-required' }] } }),
    });
    const env = { TASK: ((await seeded.json()) as { task: { id: string } }).task.id };
    const failures: string[] = [];
    for (const curl of curls) {
      let command = curl.command;
      for (const [written, real] of bound) command = command.split(written).join(real);
      const ran = await runCurl(command, env, work);
      const ok = curl.status === undefined ? ran.status >= 200 && ran.status < 300 : ran.status === curl.status;
      const streamEnded = ran.exit === 0 || (ran.exit === 28 && /\s-\w*N/.test(command));
      if (!ok || !streamEnded)
        failures.push(
          `${file}:${curl.line}: HTTP ${ran.status} (curl exit ${ran.exit}), wanted ${curl.status ?? '2xx'}\n${command}\n${ran.body.slice(0, 400)}`,
        );
      const answer = jsonOf(ran.body);
      for (const [member, placeholder] of shownIds(curl.shown)) {
        const real = firstString(answer, member);
        if (typeof real === 'string' && real !== placeholder && !bound.has(placeholder)) bound.set(placeholder, real);
      }
    }
    expect(failures).toEqual([]);
  });
});
