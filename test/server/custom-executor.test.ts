import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Snapshot } from '../../generated/control/types.js';
import { PresetRegistry, type AgentExecutor } from '../../src/index.js';
import { call, expectErrorResponse, rpc, stream, userMessage } from '../helpers/a2a-client.js';
import { spawnHub, spawnTsUntilUrl, type ChildHub } from '../helpers/child-hub.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { REPO_ROOT } from '../helpers/paths.js';

// The same executor as docs/server.md's snippet (which the last describe runs on the sources), with the whole protocol checked.
const shout: AgentExecutor = {
  execute(request, events) {
    events.artifact({ name: 'shout', parts: request.text.toUpperCase() });
    events.complete();
    return Promise.resolve();
  },
};

const broken: AgentExecutor = {
  async execute() {
    await Promise.resolve();
    throw new Error('database unreachable');
  },
};

let hub: TestHub | undefined;
afterAll(() => hub?.dispose());

describe('a custom executor', () => {
  it('is hosted in a few lines and speaks the whole protocol', async () => {
    const presets = new PresetRegistry();
    presets.register({
      id: 'shout',
      name: 'Shout',
      description: 'Answers in capitals.',
      executor: shout,
      skills: [{ id: 'chat', name: 'chat', description: 'Shouts back.', tags: ['demo'] }],
      inputModes: ['text/plain'],
      outputModes: ['text/plain'],
      extensions: [],
    });
    presets.register({
      id: 'broken',
      name: 'Broken',
      description: 'Always throws.',
      executor: broken,
      skills: [{ id: 'chat', name: 'chat', description: 'fails', tags: ['demo'] }],
      inputModes: ['text/plain'],
      outputModes: ['text/plain'],
      extensions: [],
    });
    hub = await startTestHub({ presets });
    const shouter = await hub.inbounds.create({ name: 'shouter', description: 'shouts', version: '1.0.0', preset: 'shout' });
    const endpoint = `${hub.url}${shouter.endpointPath}`;

    const result = await call(endpoint, 'SendMessage', { message: userMessage('hello there') });
    expect(result.task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(result.task?.artifacts?.[0]?.parts[0]?.text).toBe('HELLO THERE');

    const streamed = await stream(endpoint, 'SendStreamingMessage', { message: userMessage('quiet') });
    expect(streamed.events.map((event) => Object.keys(event.frame)[0])).toEqual([
      'task',
      'statusUpdate',
      'artifactUpdate',
      'statusUpdate',
      // The closing snapshot after the terminal status (streamFinalTask, on by default).
      'task',
    ]);

    const failing = await hub.inbounds.create({ name: 'broken', description: 'fails', version: '1.0.0', preset: 'broken' });
    const failed = await call(`${hub.url}${failing.endpointPath}`, 'SendMessage', { message: userMessage('try') });
    expect(failed.task?.status.state).toBe('TASK_STATE_FAILED');
    expect(failed.task?.status.message?.parts[0]?.text).toBe('the agent failed: database unreachable');
    expect(JSON.stringify(failed)).not.toMatch(/\n\s+at /);
  });
});

describe('the snippet of docs/server.md "Plugging in your own agent", run on the sources', () => {
  const folder = mkdtempSync(join(tmpdir(), 'a2a-hub-snippet-'));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  /**
   * The first ts block after the heading: what a reader copies, which imports the package. Here
   * it runs on the sources (test/package/pack.test.ts runs it from the package as written).
   */
  function snippet(): string {
    const text = readFileSync(join(REPO_ROOT, 'docs', 'server.md'), 'utf8');
    const section = text.slice(text.indexOf('## Plugging in your own agent'));
    const block = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
    expect(block, 'a ts block in "Plugging in your own agent"').toBeDefined();
    expect(block).toContain("from 'a2a-hub';");
    return (block ?? '').replace("from 'a2a-hub';", "from './src/index.js';");
  }

  async function stopped(child: ChildHub): Promise<void> {
    child.process.kill('SIGTERM');
    await child.exited;
  }

  it('prints its URL, keeps to its own data dir, adds the instance once, and leaves a hub without its preset startable', async () => {
    // A folder of its own standing in for the repository's root: its ./src and package.json (an ES module package).
    writeFileSync(join(folder, 'shout.ts'), snippet());
    symlinkSync(join(REPO_ROOT, 'src'), join(folder, 'src'), 'dir');
    symlinkSync(join(REPO_ROOT, 'package.json'), join(folder, 'package.json'));
    const runs: string[] = [];
    for (let run = 0; run < 2; run += 1) {
      const child = await spawnTsUntilUrl('shout.ts', folder, /shouter: (\S+)/);
      try {
        expect(child.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/a2a\/shouter$/);
        const answer = await call(child.url, 'SendMessage', { message: userMessage(`run ${run}`) });
        expect(answer.task?.artifacts?.[0]?.parts[0]?.text).toBe(`RUN ${run}`);
        const snapshot = (await (await fetch(new URL('/a2a/api', child.url))).json()) as Snapshot;
        expect(snapshot.inbounds.map((row) => row.id).sort()).toEqual(['default', 'shouter']);
        runs.push(child.url);
      } finally {
        await stopped(child);
      }
    }
    expect(runs).toHaveLength(2);

    const served = await spawnHub(join(folder, '.a2a-hub-shout'));
    try {
      expect(served.output()).toMatch(/Unavailable: .*\/a2a\/shouter .*preset "shout" is not registered/);
      expect((await call(`${served.url}/a2a/default`, 'SendMessage', { message: userMessage('hi') })).task?.status.state).toBe(
        'TASK_STATE_COMPLETED',
      );
      expectErrorResponse(await rpc(`${served.url}/a2a/shouter`, 'ListTasks', {}), 'AgentUnavailableError', { httpStatus: 503 });
    } finally {
      await stopped(served);
    }
  });
});
