import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERRORS } from '../../generated/a2a/1.0/errors.js';
import type { MethodName } from '../../generated/a2a/1.0/methods.js';
import type { Task } from '../../generated/a2a/1.0/types.js';
import { userMessage } from '../helpers/a2a-client.js';
import { BINDING_DRIVERS, type BindingDriver, type BindingRequest } from '../helpers/bindings.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { storeOnMissingPreset } from '../helpers/missing-preset.js';
import { hubStores, sharedTestPostgres } from '../helpers/postgres.js';
import { BINDING_CASES, CASE_BODY_LIMIT, type BindingCase, type GivenTask } from './bindings.case.js';

/**
 * The shared two-binding case table (bindings.case.ts) run over JSON-RPC and HTTP+JSON: each
 * row is sent over both, each answer is checked against the row (the strict clients validate
 * every body and frame with the generated validators), and the two answers must agree.
 */

/** What a row's answer comes to, binding-neutral: compared across the bindings. */
interface Outcome {
  /** The error's HTTP status and gRPC status name: the same on both bindings even where the names differ. */
  readonly error?: string;
  /** The violated fields, from the request message's root (each binding's own naming checked and undone). */
  readonly fields?: readonly string[];
  readonly state?: string;
  readonly sameTask?: boolean;
}

const TOKEN = 'case-table-token';
const postgres = sharedTestPostgres();

/** The stores the table runs on: every row must be answered alike on each. */
const STORES = hubStores(postgres);

describe.each(STORES.map((store) => [store.name, store] as const))('the case table on %s', (_store, store) => {
  let hub: TestHub;
  let limited: TestHub;
  let dataDir: string;
  const paths: Record<NonNullable<BindingCase['agent']>, string> = { default: '/a2a/default', locked: '', unavailable: '', 'no-push': '' };

  beforeAll(async () => {
    if (!store.available) return;
    dataDir = mkdtempSync(join(tmpdir(), 'a2a-hub-bindings-'));
    const options = await store.options(dataDir);
    const [gone] = await storeOnMissingPreset(options, ['gone']);
    [hub, limited] = await Promise.all([
      startTestHub({ ...options, bodyLimitBytes: CASE_BODY_LIMIT }),
      startTestHub({ rateLimit: { perSecond: 0.001, burst: 1 } }),
    ]);
    const locked = await hub.inbounds.create({ name: 'locked', description: 'wants a token', version: '1.0.0', preset: 'echo' });
    await hub.inbounds.setAuth(locked.id, TOKEN);
    paths.locked = locked.endpointPath;
    paths['no-push'] = (
      await hub.inbounds.create({
        name: 'no push',
        description: 'turns push off',
        version: '1.0.0',
        preset: 'echo',
        pushNotifications: false,
      })
    ).endpointPath;
    paths.unavailable = gone?.endpointPath ?? '';
  });

  afterAll(async () => {
    if (!store.available) return;
    await Promise.all([hub?.dispose(), limited?.dispose()]);
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** A task in the given state, made through the binding under test. */
  async function givenTask(driver: BindingDriver, url: string, given: GivenTask, tenant: string | undefined): Promise<Task> {
    const text = { completed: 'given', 'input-required': 'given\n::input-required', working: 'given' }[given];
    const working = given === 'working' ? { metadata: { 'a2a-hub/test': { steps: 5, stepMs: 100 } } } : {};
    const answer = await driver.call({
      url,
      method: 'SendMessage',
      params: { message: userMessage(text, working), ...(given === 'working' ? { configuration: { returnImmediately: true } } : {}) },
      headers: {},
      tenant,
    });
    const task = (answer.result as { task?: Task } | undefined)?.task;
    expect(task, `a ${given} task`).toBeDefined();
    return task as Task;
  }

  /** The task an answer is about: a Task, a SendMessage result's task, the first task of a list. */
  function taskOf(result: unknown): Task | undefined {
    const value = result as { task?: Task; tasks?: Task[]; status?: unknown } | undefined;
    if (value?.task !== undefined) return value.task;
    if (value?.tasks !== undefined) return value.tasks[0];
    return value?.status === undefined ? undefined : (value as Task);
  }

  async function run(driver: BindingDriver, row: BindingCase): Promise<Outcome> {
    const target = row.rateLimited ? limited : hub;
    const url = `${target.url}${paths[row.agent ?? 'default']}`;
    const given = row.given === undefined ? undefined : await givenTask(driver, url, row.given, row.tenant);
    const request: BindingRequest = {
      url,
      method: row.method,
      params: row.params?.(given) ?? {},
      headers: { ...row.wire?.headers, ...(row.wire?.contentType === undefined ? {} : { 'content-type': row.wire.contentType }) },
      tenant: row.tenant,
    };
    // The bucket holds one request: spend it, whichever binding comes first.
    if (row.rateLimited) await driver.call({ ...request, method: 'ListTasks', params: {} });
    const wantedError = typeof row.want.error === 'object' ? row.want.error[driver.name] : row.want.error;
    if (row.stream && wantedError === undefined) {
      const frames = await driver.stream(request);
      expect(frames[0]?.task, 'a stream opens with the Task').toBeDefined();
      const last = [...frames].reverse().find((frame) => frame.task !== undefined || frame.statusUpdate !== undefined);
      const state = last?.task?.status.state ?? last?.statusUpdate?.status.state;
      return {
        state: row.want.state === undefined ? 'any' : (state ?? 'none'),
        sameTask: given === undefined ? false : frames[0]?.task?.id === given.id,
      };
    }
    const answer = await driver.call(request);
    if (wantedError !== undefined) {
      const fields = answer.expectError(wantedError).violations.map((violation) => violation.field);
      // A row names its fields once, from the request message's root; each binding places them its own way.
      if (row.want.fields !== undefined) expect(fields, driver.name).toEqual(row.want.fields.map(driver.wireField));
      return { error: `${ERRORS[wantedError].httpStatus} ${ERRORS[wantedError].grpcStatus}`, fields: fields.map(driver.rootField) };
    }
    expect(answer.error, `${driver.name}: expected a result`).toBeUndefined();
    const task = taskOf(answer.result);
    return {
      // Only a state the row names is compared: what returnImmediately or a list shows depends on timing.
      ...(task === undefined || row.want.state === undefined ? {} : { state: task.status.state }),
      sameTask: given !== undefined && task?.id === given.id && task.contextId === given.contextId,
    };
  }

  describe.skipIf(!store.available)('both bindings answer every case alike', () => {
    it.each(BINDING_CASES.map((row) => [row.name, row] as const))('%s', async (_name, row) => {
      const outcomes: Outcome[] = [];
      for (const driver of BINDING_DRIVERS) {
        const outcome = await run(driver, row);
        if (row.want.state !== undefined) expect(outcome.state, driver.name).toBe(row.want.state);
        if (row.want.sameTask) expect(outcome.sameTask, `${driver.name}: the answer is about the given task`).toBe(true);
        outcomes.push(outcome);
      }
      expect(outcomes[1], 'HTTP+JSON answers as JSON-RPC does').toEqual(outcomes[0]);
    });

    it('covers every method of the registry', async () => {
      const { METHODS } = await import('../../generated/a2a/1.0/methods.js');
      const covered = new Set(BINDING_CASES.map((row) => row.method));
      expect(Object.keys(METHODS).filter((method) => !covered.has(method as MethodName))).toEqual([]);
    });
  });
});
