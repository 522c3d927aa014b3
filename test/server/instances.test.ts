import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OperationError } from '../../src/support/operation-error.js';
import { call, userMessage } from '../helpers/a2a-client.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { listTasksStatus, statusOf } from '../helpers/raw-http.js';

let hub: TestHub;
beforeAll(async () => {
  hub = await startTestHub();
});
afterAll(() => hub.dispose());

/** The HTTP status of the card of the instance at `path`, and of a ListTasks posted to its endpoint. */
const cardStatus = (path: string): Promise<number> => statusOf(`${hub.url}${path}/agent-card.json`);
const endpointStatus = (path: string): Promise<number> => listTasksStatus(`${hub.url}${path}`);

describe('inbound instances through the module API take effect on live routes', () => {
  it('creates an instance with a <slug>-<8 hex> id whose card and endpoint answer at once', async () => {
    const created = await hub.inbounds.create({ name: 'Quarterly Reports!', description: 'reports', version: '0.1.0' });
    expect(created.id).toMatch(/^quarterly-reports-[0-9a-f]{8}$/);
    expect(created.endpointPath).toBe(`/a2a/${created.id}`);
    expect(await cardStatus(`/a2a/${created.id}`)).toBe(200);
    const result = await call(`${hub.url}/a2a/${created.id}`, 'SendMessage', { message: userMessage('hi reports') });
    expect(result.task?.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('moves both routes when endpointPath changes', async () => {
    const created = await hub.inbounds.create({ name: 'mover', description: 'd', version: '1' });
    await hub.inbounds.update(created.id, { endpointPath: '/agents/moved' });
    expect(await cardStatus(`/a2a/${created.id}`)).toBe(404);
    expect(await endpointStatus(`/a2a/${created.id}`)).toBe(404);
    expect(await cardStatus('/agents/moved')).toBe(200);
    expect(await endpointStatus('/agents/moved')).toBe(200);
    const card = (await (await fetch(`${hub.url}/agents/moved/agent-card.json`)).json()) as { supportedInterfaces: { url: string }[] };
    expect(card.supportedInterfaces[0]?.url).toBe(`${hub.url}/agents/moved`);
  });

  it('a disabled instance answers 404 on card and endpoint until enabled again', async () => {
    const created = await hub.inbounds.create({ name: 'toggle', description: 'd', version: '1', enabled: false });
    expect(await cardStatus(`/a2a/${created.id}`)).toBe(404);
    await hub.inbounds.setEnabled(created.id, true);
    expect(await endpointStatus(`/a2a/${created.id}`)).toBe(200);
    await hub.inbounds.setEnabled(created.id, false);
    expect(await endpointStatus(`/a2a/${created.id}`)).toBe(404);
  });

  it('a removed instance is gone', async () => {
    const created = await hub.inbounds.create({ name: 'temp', description: 'd', version: '1' });
    await hub.inbounds.remove(created.id);
    expect(hub.inbounds.get(created.id)).toBeUndefined();
    expect(await cardStatus(`/a2a/${created.id}`)).toBe(404);
    await expect(hub.inbounds.remove(created.id)).rejects.toThrow(OperationError);
  });

  it('refuses paths the hub serves itself, paths in use and unknown presets, with messages a person can act on', async () => {
    await expect(hub.inbounds.create({ name: 'x', description: 'd', version: '1', endpointPath: '/a2a/api/x' })).rejects.toThrow(
      /not usable/,
    );
    await expect(hub.inbounds.create({ name: 'x', description: 'd', version: '1', endpointPath: '/a2a/default' })).rejects.toThrow(
      /already used by instance "default"/,
    );
    await expect(hub.inbounds.create({ name: 'x', description: 'd', version: '1', endpointPath: 'no-slash' })).rejects.toThrow(
      /not usable/,
    );
    await expect(hub.inbounds.create({ name: 'x', description: 'd', version: '1', preset: 'oracle' })).rejects.toThrow(
      /unknown preset "oracle"; available: echo/,
    );
    await expect(hub.inbounds.update('nope', { name: 'y' })).rejects.toThrow(/no inbound instance has id "nope"/);
  });

  it('advertises configured skills instead of the preset ones, and routes metadata.skill by them', async () => {
    const created = await hub.inbounds.create({
      name: 'skilled',
      description: 'd',
      version: '1',
      skills: [{ id: 'summarise', name: 'summarise', description: 'summaries', tags: ['text'] }],
    });
    const card = (await (await fetch(`${hub.url}/a2a/${created.id}/agent-card.json`)).json()) as { skills: { id: string }[] };
    expect(card.skills.map((skill) => skill.id)).toEqual(['summarise']);
    const endpoint = `${hub.url}/a2a/${created.id}`;
    expect(
      (await call(endpoint, 'SendMessage', { message: userMessage('a', { metadata: { skill: 'summarise' } }) })).task?.status.state,
    ).toBe('TASK_STATE_COMPLETED');
    expect((await call(endpoint, 'SendMessage', { message: userMessage('a', { metadata: { skill: 'chat' } }) })).task?.status.state).toBe(
      'TASK_STATE_REJECTED',
    );
    expect((await call(endpoint, 'SendMessage', { message: userMessage('no skill named') })).task?.status.state).toBe(
      'TASK_STATE_COMPLETED',
    );
  });
});
