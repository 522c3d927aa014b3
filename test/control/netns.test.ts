import { execFile, spawnSync } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTROL } from '../../src/protocol/control-schema.js';
import { checkValue } from '../../src/protocol/validation.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { skipNotice } from '../helpers/skip-notice.js';

/**
 * A real non-loopback peer: a network namespace joined to the host by a veth pair on a
 * private /30 the test creates itself. The hub listens on the host end of that pair; a node
 * process inside the namespace is a remote client. No traffic goes to any other address.
 */

const run = promisify(execFile);

function skipReason(): string | undefined {
  if (process.platform !== 'linux') return 'network namespaces need Linux';
  if (process.getuid?.() !== 0) return 'creating a network namespace needs root';
  const probe = spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' });
  if (probe.error !== undefined || probe.status !== 0)
    return `\`ip netns list\` is not available (${probe.error?.message ?? probe.stderr.trim()})`;
  return undefined;
}

const reason = skipReason();
if (reason !== undefined) skipNotice(`the network-namespace test of the control API (${reason})`);

/** Runs `ip` synchronously during set-up and clean-up, where nothing else needs the event loop. */
function ip(args: string[], options: { allowFailure?: boolean } = {}): string {
  const result = spawnSync('ip', args, { encoding: 'utf8' });
  if (!options.allowFailure && result.status !== 0)
    throw new Error(`ip ${args.join(' ')} failed: ${result.stderr.trim() || String(result.error)}`);
  return result.stdout;
}

describe.skipIf(reason !== undefined)('the control API refuses a real non-loopback peer (network namespace)', () => {
  const suffix = randomBytes(4).toString('hex');
  const namespace = `a2ahub-test-${suffix}`;
  const hostLink = `vh${suffix}`;
  const nsLink = `vn${suffix}`;
  let octet = 0;
  let hostAddress = '';
  let nsAddress = '';
  let hub: TestHub | undefined;
  let base = '';

  beforeAll(async () => {
    // A /30 no interface on this machine uses yet.
    const inUse = ip(['-o', '-4', 'addr', 'show']);
    const routes = ip(['-4', 'route', 'show']);
    for (let attempt = 0; attempt < 50 && octet === 0; attempt += 1) {
      const candidate = randomInt(1, 251);
      if (!inUse.includes(`10.213.${candidate}.`) && !routes.includes(`10.213.${candidate}.`)) octet = candidate;
    }
    if (octet === 0) throw new Error('no free 10.213.<r>.0/30 found');
    hostAddress = `10.213.${octet}.1`;
    nsAddress = `10.213.${octet}.2`;
    ip(['netns', 'add', namespace]);
    ip(['link', 'add', hostLink, 'type', 'veth', 'peer', 'name', nsLink]);
    ip(['link', 'set', nsLink, 'netns', namespace]);
    ip(['addr', 'add', `${hostAddress}/30`, 'dev', hostLink]);
    ip(['link', 'set', hostLink, 'up']);
    ip(['netns', 'exec', namespace, 'ip', 'addr', 'add', `${nsAddress}/30`, 'dev', nsLink]);
    ip(['netns', 'exec', namespace, 'ip', 'link', 'set', nsLink, 'up']);
    ip(['netns', 'exec', namespace, 'ip', 'link', 'set', 'lo', 'up']);
    hub = await startTestHub({ host: hostAddress });
    base = hub.url;
    expect(base).toMatch(new RegExp(`^http://${hostAddress.replaceAll('.', '\\.')}:\\d+$`));
  });

  afterAll(async () => {
    try {
      await hub?.dispose();
    } finally {
      // Deleting the namespace deletes its end of the veth pair, and with it the host end.
      ip(['netns', 'del', namespace], { allowFailure: true });
      if (ip(['link', 'show', hostLink], { allowFailure: true }) !== '') ip(['link', 'del', hostLink], { allowFailure: true });
    }
  });

  interface Fetched {
    readonly status: number;
    readonly body: string;
  }

  /** fetch() from a node process inside the namespace, asynchronously so the hub in this process can answer. */
  async function fetchFromNamespace(
    path: string,
    init: { method?: string; headers?: Record<string, string>; body?: string } = {},
  ): Promise<Fetched> {
    const script = `fetch(${JSON.stringify(`${base}${path}`)}, ${JSON.stringify(init)}).then(async (r) => console.log(JSON.stringify({ status: r.status, body: await r.text() }))).catch((e) => { console.error(String(e)); process.exit(2); })`;
    const { stdout } = await run('ip', ['netns', 'exec', namespace, process.execPath, '-e', script], { timeout: 20_000 });
    return JSON.parse(stdout.trim()) as Fetched;
  }

  function expectForbidden(answer: Fetched, def: 'ReadError' | 'ActionFailure' = 'ReadError'): void {
    expect(answer.status).toBe(403);
    const body = JSON.parse(answer.body) as unknown;
    const verdict = checkValue(CONTROL, def, body, { flavour: 'exact' });
    expect(verdict.ok ? [] : verdict.violations).toEqual([]);
    expect(body).toEqual({ ok: false, message: 'the control API answers loopback peers only' });
  }

  it('the namespace reaches the hub only through the veth pair', () => {
    expect(ip(['netns', 'exec', namespace, 'ip', '-o', '-4', 'addr', 'show', 'dev', nsLink])).toContain(`${nsAddress}/30`);
  });

  it('GET /a2a/api from inside the namespace prints 403', async () => {
    const script = `fetch('${base}/a2a/api').then(r=>console.log(r.status))`;
    const { stdout } = await run('ip', ['netns', 'exec', namespace, process.execPath, '-e', script], { timeout: 20_000 });
    expect(stdout.trim()).toBe('403');
  });

  it('every control path answers 403, with or without headers claiming loopback', async () => {
    const claims = { 'x-forwarded-for': '127.0.0.1', 'x-real-ip': '127.0.0.1', forwarded: 'for=127.0.0.1' };
    for (const path of [
      '/a2a/api',
      '/a2a/api/presets',
      '/a2a/api/card?id=default',
      '/a2a/api/metrics?format=prometheus',
      '/a2a/api/push?taskId=x',
      '/a2a/panel',
    ]) {
      expectForbidden(await fetchFromNamespace(path));
      expectForbidden(await fetchFromNamespace(path, { headers: claims }));
    }
    expectForbidden(await fetchFromNamespace('/a2a/api', { method: 'PUT', headers: claims }));
  });

  it('an action from inside the namespace is refused and changes nothing', async () => {
    const before = hub?.inbounds.list().length;
    const answer = await fetchFromNamespace('/a2a/api', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '127.0.0.1' },
      body: JSON.stringify({ action: 'inbound.create', name: 'intruder', description: 'd', version: '1' }),
    });
    expectForbidden(answer, 'ActionFailure');
    expect(hub?.inbounds.list().length).toBe(before);
  });

  it('the A2A routes are not loopback-restricted: the card and the endpoint answer the namespace', async () => {
    const card = await fetchFromNamespace('/a2a/default/agent-card.json');
    expect(card.status).toBe(200);
    expect((JSON.parse(card.body) as { supportedInterfaces: { url: string }[] }).supportedInterfaces[0]?.url).toBe(`${base}/a2a/default`);
    expect((await fetchFromNamespace('/.well-known/agent-card.json')).status).toBe(200);
    const sent = await fetchFromNamespace('/a2a/default', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: { message: { messageId: `ns-${suffix}`, role: 'ROLE_USER', parts: [{ text: 'from the namespace' }] } },
      }),
    });
    expect(sent.status).toBe(200);
    const result = (JSON.parse(sent.body) as { result?: { task?: { status: { state: string } } } }).result;
    expect(result?.task?.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('a browser in the namespace asking for / is not sent to the panel: a JSON 404 names the public card only', async () => {
    const answer = await fetchFromNamespace('/', { headers: { accept: 'text/html,*/*;q=0.8' } });
    expect(answer.status).toBe(404);
    const body = JSON.parse(answer.body) as { error: { message: string } };
    expect(body.error.message).toBe(`nothing is served at GET /; this hub's agent card is at ${base}/.well-known/agent-card.json`);
  });

  it('a local process reaching the hub through the non-loopback veth address is refused too', async () => {
    // The source address of this connection is the host end of the pair, not 127.0.0.1.
    const answer = await fetch(`${base}/a2a/api`, { headers: { 'x-forwarded-for': '127.0.0.1' } });
    expect(answer.status).toBe(403);
  });
});
