import { afterEach, describe, expect, it, vi } from 'vitest';
import { startSdkAgent, type SdkAgent } from './sdk-agent.js';
import { startSdk03Agent } from './sdk03-agent.js';

/**
 * The @a2a-js/sdk server logs every error it answers with console.error, a bad request from a
 * conformance probe included; sdk-echo keeps those lines to itself (agent.sdkLog) so that a
 * green run prints no stderr, while anything else written to the console still shows.
 */

let agent: SdkAgent | undefined;
afterEach(async () => {
  await agent?.close();
  agent = undefined;
  vi.restoreAllMocks();
});

async function send(endpoint: string, version: string, extra: Record<string, unknown> = {}): Promise<{ error?: { message?: string } }> {
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': version },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hello' }], ...extra } },
    }),
  });
  return (await response.json()) as { error?: { message?: string } };
}

describe("sdk-echo's console", () => {
  it('keeps the error the SDK logs for a request it refuses out of stderr, and records it', async () => {
    // Installed before the agent starts, so it stands where vitest's console would print.
    const printed = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    agent = await startSdkAgent();

    const body = await send(agent.endpoint, '99.0');
    expect(body.error?.message).toMatch(/99\.0/);

    expect(printed).not.toHaveBeenCalled();
    expect(agent.sdkLog()).toEqual([
      expect.stringMatching(/^Unhandled error in JSON-RPC POST handler: VersionNotSupportedError: .*'99\.0'/),
    ]);
  });

  it('records, unprinted and verbatim, its warning about a referenced task it does not know', async () => {
    const printed = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    agent = await startSdkAgent();

    const body = await send(agent.endpoint, '1.0', { referenceTaskIds: ['no-such-task-%s'] });
    expect(body.error).toBeUndefined();

    expect(printed).not.toHaveBeenCalled();
    expect(agent.sdkLog()).toEqual(['Reference task no-such-task-%s not found.']);
  });

  it('does the same for the 0.3 SDK: its errors for refused requests and its note of a direct Message', async () => {
    const printed = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const old = await startSdk03Agent();
    try {
      const call = async (method: string, params: unknown) =>
        await fetch(old.endpoint, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
        }).then((response) => response.text());
      // tasks/resubscribe of an unknown task: the SDK logs the TaskNotFound it streams back.
      expect(await call('tasks/resubscribe', { id: 'no-such-task' })).toMatch(/-32001/);
      const message = { kind: 'message', messageId: crypto.randomUUID(), role: 'user', parts: [{ kind: 'text', text: '::message' }] };
      expect(await call('message/send', { message })).toMatch(/"kind":"message"/);
      expect(printed).not.toHaveBeenCalled();
      expect(old.sdkLog()).toEqual(
        expect.arrayContaining([expect.stringMatching(/Task not found: no-such-task/), 'Task ID not found for event message.']),
      );
    } finally {
      await old.close();
    }
  });

  it('still prints what does not come from the SDK', async () => {
    const printed = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    agent = await startSdkAgent();

    console.error('a line of the test itself');

    expect(printed).toHaveBeenCalledWith('a line of the test itself');
    expect(agent.sdkLog()).toEqual([]);
  });

  it('puts the console back once the agent is closed', async () => {
    const printed = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    agent = await startSdkAgent();
    await agent.close();
    agent = undefined;

    expect(console.error).toBe(printed);
  });
});
