import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { StreamResponse } from '../../generated/a2a/1.0/types.js';
import { generateSigningSecret, signWebhook } from '../../src/push/signature.js';
import { spawnCliUntilUrl, type ChildHub } from '../helpers/child-hub.js';
import { runCli } from '../helpers/run.js';
import { until } from '../helpers/wait.js';

const SECRET = generateSigningSecret();
const FRAME: StreamResponse = { statusUpdate: { taskId: 'task-7', contextId: 'ctx-7', status: { state: 'TASK_STATE_COMPLETED' } } };

let child: ChildHub | undefined;
afterEach(async () => {
  if (child !== undefined && child.process.exitCode === null) {
    child.process.kill('SIGTERM');
    await child.exited;
  }
  child = undefined;
});

async function post(url: string, frame: unknown, secret: string, id: string): Promise<number> {
  const body = JSON.stringify(frame);
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/a2a+json', ...signWebhook(secret, id, body, Date.now() / 1000) },
    body,
  });
  await response.text();
  return response.status;
}

/** The output lines after the URL line that contain `needle`, once there is one. */
async function lineWith(running: ChildHub, needle: string): Promise<string> {
  await until(() => running.output().includes(needle), `a line with ${needle}`);
  return (
    running
      .output()
      .split('\n')
      .find((line) => line.includes(needle)) ?? ''
  );
}

describe('a2a-hub webhook', () => {
  it('prints the URL it listens on, then a line per delivery; a bad signature gets 401 and a "signature bad" line', async () => {
    child = await spawnCliUntilUrl(['webhook', '--port', '0', '--secret', SECRET, '--task', 'task-7'], /Webhook URL: (\S+)/);
    expect(child.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(await post(child.url, FRAME, SECRET, 'msg_good')).toBe(204);
    expect(await lineWith(child, 'msg_good')).toMatch(
      /^\d{4}-\d\d-\d\dT[\d:.]+Z {2}msg_good {2}task-7 {2}statusUpdate {2}TASK_STATE_COMPLETED {2}signature ok {2}204$/,
    );
    expect(await post(child.url, FRAME, generateSigningSecret(), 'msg_forged')).toBe(401);
    expect(await lineWith(child, 'msg_forged')).toMatch(
      /msg_forged {2}- {2}- {2}- {2}signature bad {2}401 {2}signature: no v1 signature matches the body$/,
    );
    expect(await post(child.url, { ...FRAME, statusUpdate: { ...FRAME.statusUpdate, taskId: 'task-8' } }, SECRET, 'msg_other')).toBe(400);
    expect(await lineWith(child, 'msg_other')).toContain(
      'task-8  statusUpdate  TASK_STATE_COMPLETED  signature ok  400  the delivery carries task id "task-8"',
    );
    expect(child.output()).not.toContain(SECRET);
    child.process.kill('SIGTERM');
    expect(await child.exited).toBe(0);
  });

  it('prints JSONL with --json and answers --status', async () => {
    child = await spawnCliUntilUrl(['webhook', '--json', '--status', '503'], /\{"listening":"([^"]+)"\}/);
    expect(await post(child.url, FRAME, SECRET, 'msg_json')).toBe(503);
    const line = await lineWith(child, 'msg_json');
    expect(JSON.parse(line)).toMatchObject({
      webhookId: 'msg_json',
      kind: 'statusUpdate',
      taskId: 'task-7',
      state: 'TASK_STATE_COMPLETED',
      signature: 'none',
      status: 503,
      duplicate: false,
      frame: FRAME,
    });
  });

  it('refuses bad flags with exit code 2, never echoing the secret', () => {
    const result = runCli(['webhook', '--port', '70000', '--status', '42', '--secret', 'hunter2']);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('--port must be a whole number from 0 to 65535, got "70000"');
    expect(result.stderr).toContain('--status must be an HTTP status from 200 to 599, got "42"');
    expect(result.stderr).toContain('--secret must be whsec_ followed by base64');
    expect(result.stderr).not.toContain('hunter2');
  });

  it('says so when the port is taken', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      const port = (taken.address() as AddressInfo).port;
      const result = runCli(['webhook', '--port', String(port)]);
      expect(result.status).toBe(2);
      expect(result.stderr).toContain(`a2a-hub webhook: cannot listen on 127.0.0.1 port ${port}: `);
      expect(result.stderr).toContain('the port is in use; pick another with --port N');
    } finally {
      await new Promise<void>((resolve) => taken.close(() => resolve()));
    }
  });
});
