import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConformanceReport } from '../../generated/conformance/types.js';
import { validateConformanceReport } from '../../generated/conformance/validators.js';
import { REPO_ROOT } from '../../codegen/paths.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { storeOnMissingPreset } from '../helpers/missing-preset.js';

/** Runs `a2a-hub conform` in a child process without blocking the event loop (the agent under test lives in this process). */
function conform(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(REPO_ROOT, 'src', 'cli', 'bin.js'), 'conform', ...args], {
      env: { ...process.env, NO_COLOR: '1' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

const scratch = mkdtempSync(join(tmpdir(), 'a2a-hub-conform-cli-'));
let hub: TestHub;
let broken: Server;
let brokenUrl = '';

beforeAll(async () => {
  hub = await startTestHub();
  // An "agent" that answers malformed JSON with -32600 instead of -32700.
  broken = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      let parsed: { id?: unknown } | undefined;
      try {
        parsed = JSON.parse(body) as { id?: unknown };
      } catch {
        parsed = undefined;
      }
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ jsonrpc: '2.0', id: parsed?.id ?? null, error: { code: parsed ? -32001 : -32600, message: 'nope' } }));
    });
  });
  await new Promise<void>((resolve) => broken.listen(0, '127.0.0.1', resolve));
  brokenUrl = `http://127.0.0.1:${(broken.address() as AddressInfo).port}/rpc`;
});
afterAll(async () => {
  await hub.dispose();
  await new Promise((resolve) => broken.close(resolve));
  rmSync(scratch, { recursive: true, force: true });
});

describe('a2a-hub conform', () => {
  it('exits 0 against a conforming agent and writes JSON, JUnit and HTML reports', async () => {
    const json = join(scratch, 'report.json');
    const junit = join(scratch, 'report.xml');
    const html = join(scratch, 'report.html');
    const result = await conform([
      hub.url,
      '--only',
      'JSONRPC-ENV-003,JSONRPC-ENV-005,CARD-002',
      '--seed',
      '5',
      '--json',
      json,
      '--junit',
      junit,
      '--html',
      html,
    ]);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/MUST failures: 0 · 3 PASS, 0 FAIL/);
    const report = JSON.parse(readFileSync(json, 'utf8')) as unknown;
    expect(validateConformanceReport(report)).toBe(true);
    expect(readFileSync(junit, 'utf8')).toMatch(/^<\?xml/);
    expect(readFileSync(html, 'utf8')).toContain('JSONRPC-ENV-003');
  });

  it('exits 1 when a MUST requirement fails, and prints the curl that reproduces it', async () => {
    const result = await conform([brokenUrl, '--only', 'JSONRPC-ENV-003', '--seed', '5']);
    expect(result.status).toBe(1);
    expect(result.stdout).toContain('FAIL   JSONRPC-ENV-003');
    expect(result.stdout).toMatch(/curl -sS -N -X POST '.*\/rpc'/);
    expect(result.stdout).toContain('no agent card was found');
  });

  it('tests the instance of the endpoint URL given, and refuses a path no agent is at or a protected one without --token', async () => {
    const instance = await hub.inbounds.create({ name: 'second', description: 'not the default', version: '1.0.0' });
    const json = join(scratch, 'instance.json');
    const tested = await conform([`${hub.url}${instance.endpointPath}`, '--only', 'CARD-002', '--seed', '5', '--json', json]);
    expect(tested.status, tested.stderr).toBe(0);
    expect(JSON.parse(readFileSync(json, 'utf8'))).toMatchObject({
      target: { cardUrl: `${hub.url}${instance.endpointPath}/agent-card.json`, agentName: 'second' },
    });
    const typo = await conform([`${hub.url}/a2a/nope`, '--only', 'CARD-002']);
    expect(typo.status).toBe(2);
    expect(typo.stdout).toBe('');
    expect(typo.stderr).toMatch(
      /^a2a-hub conform: no agent card at .*\/a2a\/nope .*has one, so use that URL if you mean the agent it describes\n$/,
    );
    await hub.inbounds.setAuth(instance.id, 'conform-secret');
    try {
      const locked = await conform([`${hub.url}${instance.endpointPath}`, '--only', 'CARD-002']);
      expect(locked.status).toBe(2);
      expect(locked.stdout).toBe('');
      expect(locked.stderr).toMatch(
        /^a2a-hub conform: the endpoint .* answered HTTP 401 .*: no credentials were sent; pass --token <token>\n$/,
      );
      const unlocked = await conform([`${hub.url}${instance.endpointPath}`, '--only', 'CARD-002', '--token', 'conform-secret']);
      expect(unlocked.status, unlocked.stderr).toBe(0);
    } finally {
      await hub.inbounds.remove(instance.id);
    }
  });

  it('exits 2 before any check on an instance the hub cannot run, quoting why', async () => {
    const dataDir = join(scratch, 'unavailable');
    const [stored] = await storeOnMissingPreset(dataDir, ['shouter']);
    const unavailableHub = await startTestHub({ dataDir });
    try {
      const refused = await conform([`${unavailableHub.url}${stored?.endpointPath ?? ''}`, '--only', 'CARD-002']);
      expect(refused.status).toBe(2);
      expect(refused.stdout).toBe('');
      expect(refused.stderr).toMatch(/^a2a-hub conform: the agent at .* cannot be tested: .* answered HTTP 503: .*unavailable.*\n$/);
    } finally {
      await unavailableHub.dispose();
    }
  });

  it('reports an unreachable target with exit 1 (a finding, not a usage error), and exits 2 on bad options', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'a2a-hub-conform-unreachable-'));
    try {
      const json = join(dir, 'report.json');
      const junit = join(dir, 'report.xml');
      const html = join(dir, 'report.html');
      const unreachable = await conform(['http://127.0.0.1:9/', '--timeout', '2000', '--json', json, '--junit', junit, '--html', html]);
      expect(unreachable.status, unreachable.stderr).toBe(1);
      expect(unreachable.stdout).toMatch(/CARD-001/);
      // Every format is written, each with the failure that says why.
      expect(readFileSync(junit, 'utf8')).toMatch(
        /<testcase[^>]*name="CARD-001 [^"]*"[^>]*>[\s\S]*?<failure[^>]*message="GET http:\/\/127\.0\.0\.1:9\/\.well-known\/agent-card\.json failed: /,
      );
      expect(readFileSync(html, 'utf8')).toContain('127.0.0.1:9/.well-known/agent-card.json failed: ');
      const report = JSON.parse(readFileSync(json, 'utf8')) as ConformanceReport;
      expect(validateConformanceReport(report)).toBe(true);
      const card = report.results.find((result) => result.id === 'CARD-001');
      expect(card?.verdict).toBe('FAIL');
      expect(card?.findings[0]?.message).toMatch(/^GET http:\/\/127\.0\.0\.1:9\/\.well-known\/agent-card\.json failed: /);
      expect(report.results.find((result) => result.id === 'GET-001')?.findings[0]?.message).toMatch(
        /^not tested: http:\/\/127\.0\.0\.1:9\/ serves no agent card/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const badLevel = await conform([hub.url, '--level', 'sometimes']);
    expect(badLevel.status).toBe(2);
    expect(badLevel.stderr).toContain('--level must be must, should or may');
    const badProfile = await conform([hub.url, '--profile', 'tcks']);
    expect(badProfile.status).toBe(2);
    expect(badProfile.stderr).toContain('--profile takes none, directives, tck, got "tcks"');
    const torn = await conform([hub.url, '--profile', 'tck', '--black-box']);
    expect(torn.status).toBe(2);
    expect(torn.stderr).toContain('--profile, --cooperative and --black-box disagree (tck, none)');
    const badBinding = await conform([hub.url, '--binding', 'grpc']);
    expect(badBinding.status).toBe(2);
    expect(badBinding.stderr).toContain('--binding takes jsonrpc, http+json, all, got "grpc"');
  });

  it('tests the bindings --binding names, and exits 2 for one the card does not declare', async () => {
    const card = (await (await fetch(`${hub.url}/.well-known/agent-card.json`)).json()) as {
      supportedInterfaces: { protocolBinding: string }[];
    };
    const declared = card.supportedInterfaces.map((entry) => entry.protocolBinding);
    const json = join(scratch, 'bindings.json');
    const jsonrpc = await conform([hub.url, '--binding', 'jsonrpc', '--only', 'GET-002', '--json', json]);
    expect(jsonrpc.status, jsonrpc.stderr).toBe(0);
    const report = JSON.parse(readFileSync(json, 'utf8')) as { target: { interfaces: { binding: string; protocolVersion: string }[] } };
    // The hub's JSON-RPC endpoint serves 0.3 too, so both versions are tested on it.
    expect(report.target.interfaces.map((entry) => `${entry.binding} ${entry.protocolVersion}`)).toEqual(['JSONRPC 1.0', 'JSONRPC 0.3']);
    if (declared.includes('HTTP+JSON')) return;
    const rest = await conform([hub.url, '--binding', 'HTTP+JSON']);
    expect(rest.status).toBe(2);
    expect(rest.stderr).toMatch(/declares no HTTP\+JSON interface for protocol version 1\.0 or 0\.3 \(it declares JSONRPC 1\.0\)/);
  });

  it('tests the versions --protocol names: 0.3 alone on both of its bindings, or all; another value is a usage error', async () => {
    const json = join(scratch, 'protocol.json');
    const tested = async (...flags: string[]): Promise<{ versions: string[]; interfaces: string[]; catalogs: string[] }> => {
      const run = await conform([hub.url, '--only', 'GET-002,V03-TASK-002', '--json', json, ...flags]);
      expect(run.status, run.stderr).toBe(0);
      const report = JSON.parse(readFileSync(json, 'utf8')) as ConformanceReport;
      return {
        versions: report.target.protocolVersions ?? [],
        interfaces: (report.target.interfaces ?? []).map((entry) => `${entry.binding} ${entry.protocolVersion}`),
        // The results are the catalogs of the versions tested, whatever --only ran.
        catalogs: [...new Set(report.results.map((result) => (result.id.startsWith('V03-') ? '0.3' : '1.0')))],
      };
    };
    expect(await tested('--protocol', '0.3')).toEqual({
      versions: ['0.3'],
      interfaces: ['JSONRPC 0.3', 'HTTP+JSON 0.3'],
      catalogs: ['0.3'],
    });
    expect(await tested('--protocol', 'all')).toEqual({
      versions: ['1.0', '0.3'],
      interfaces: ['JSONRPC 1.0', 'HTTP+JSON 1.0', 'JSONRPC 0.3', 'HTTP+JSON 0.3'],
      catalogs: ['1.0', '0.3'],
    });
    const bad = await conform([hub.url, '--protocol', '2.0']);
    expect([bad.status, bad.stderr]).toEqual([2, expect.stringContaining('--protocol takes 1.0, 0.3, all, got "2.0"')]);
  });

  it('takes the profile the card advertises, or the one --profile names', async () => {
    const json = join(scratch, 'profile.json');
    const profileOf = async (...flags: string[]): Promise<unknown> => {
      const run = await conform([hub.url, '--only', 'SEND-006', '--json', json, ...flags]);
      expect(run.status, run.stderr).toBe(0);
      return (JSON.parse(readFileSync(json, 'utf8')) as ConformanceReport).target.profile;
    };
    expect(await profileOf()).toBe('directives');
    expect(await profileOf('--profile', 'tck')).toBe('tck');
    expect(await profileOf('--black-box')).toBe('none');
  });
});
