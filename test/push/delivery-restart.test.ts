import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { StreamResponse } from '../../generated/a2a/1.0/types.js';
import { userMessage } from '../helpers/a2a-client.js';
import { spawnHub } from '../helpers/child-hub.js';
import { startTestHub } from '../helpers/hub.js';
import { inputRequiredTask, sendTask } from '../helpers/tasks.js';
import { until } from '../helpers/wait.js';
import { deduped, labelOf, registerPushConfig, startReceiver, TEST_PUSH, type Answer, type Receiver } from './delivery-helpers.js';

/** An input-required echo task's snapshot, then the frames of continuing it with "::slow 2". */
const COMPLETED = [
  'task:input_required',
  'status:working',
  'status:working:step 1 of 2',
  'status:working:step 2 of 2',
  'artifact:echo: go on',
  'status:completed',
];
/** Deliveries the receiver accepts while the child hub runs; later ones hang until it is killed. */
const ACCEPTED_BEFORE_KILL = 5;

describe('push delivery across a crash', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('a hub killed with SIGKILL while deliveries are pending delivers them after restart: none lost, none reordered', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'a2a-hub-push-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    let phase: 'down' | 'child' | 'up' = 'down';
    let acceptedInChild = 0;
    const hook: Receiver = await startReceiver((): Answer => {
      if (phase === 'down') return { status: 503 };
      if (phase === 'up') return { status: 200 };
      acceptedInChild += 1;
      return acceptedInChild <= ACCEPTED_BEFORE_KILL ? { status: 200 } : { status: 200, hang: true };
    });
    cleanups.push(() => hook.close());

    // 1. Configs registered while the receiver is down: the snapshots wait in the outbox.
    const first = await startTestHub({ dataDir, push: TEST_PUSH });
    const tasks = await Promise.all([1, 2, 3].map(() => inputRequiredTask(first.endpoint)));
    for (const task of tasks) await registerPushConfig(first, task, { id: 'c1', url: hook.url });
    await until(async () => {
      for (const task of tasks) if ((await first.store.listAttempts(task.id, 'c1', 1)).length === 0) return false;
      return true;
    }, 'a failed attempt per config');
    await first.close();

    // 2. The real a2a-hub process: it continues the tasks (their events join the outbox), delivers some, and is killed mid-attempt.
    phase = 'child';
    const config = join(dataDir, 'hub.json');
    writeFileSync(config, JSON.stringify({ push: TEST_PUSH }));
    const childStart = hook.received.length;
    const child = await spawnHub(dataDir, ['--config', config]);
    cleanups.push(() => {
      if (child.process.exitCode === null && child.process.signalCode === null) child.process.kill('SIGKILL');
    });
    for (const task of tasks) await sendTask(`${child.url}/a2a/default`, { message: userMessage('go on\n::slow 2', { taskId: task.id }) });
    // Each of the three configs has one attempt hanging once the accepted ones are through.
    await until(() => hook.received.length - childStart >= ACCEPTED_BEFORE_KILL + 3, 'deliveries accepted and attempts hanging');
    child.process.kill('SIGKILL');
    expect(await child.exited).toBe('SIGKILL');
    const beforeRestart = hook.received.length;

    // 3. Restarted: everything still owed arrives.
    phase = 'up';
    const restarted = await startTestHub({ dataDir, push: TEST_PUSH });
    cleanups.push(() => restarted.close());
    await until(async () => (await restarted.store.pendingDeliveries()) === 0, 'the outbox to drain after the restart');
    expect(hook.received.length).toBeGreaterThan(beforeRestart);
    const accepted = hook.delivered();
    for (const task of tasks) {
      const mine = accepted.filter((webhook) => taskIdOf(webhook.frame) === task.id);
      // Deduped by webhook-id, as receivers do: every event once, in event order.
      expect(deduped(mine).map((webhook) => labelOf(webhook.frame))).toEqual(COMPLETED);
      // Even with the duplicates at-least-once allows, nothing goes backwards.
      const positions = mine.map((webhook) => COMPLETED.indexOf(labelOf(webhook.frame)));
      expect(positions).toEqual([...positions].sort((a, b) => a - b));
    }
    // An attempt cut off by the kill came again after the restart with the same webhook-id.
    const cutOff = hook.received.slice(childStart, beforeRestart).filter((webhook) => webhook.status === 0);
    const after = hook.received.slice(beforeRestart).map((webhook) => webhook.headers['webhook-id']);
    expect(cutOff).toHaveLength(3);
    for (const webhook of cutOff) expect(after).toContain(webhook.headers['webhook-id']);
  });
});

function taskIdOf(frame: StreamResponse): string | undefined {
  return frame.task?.id ?? frame.statusUpdate?.taskId ?? frame.artifactUpdate?.taskId;
}
