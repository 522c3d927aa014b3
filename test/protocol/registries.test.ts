import { describe, expect, it } from 'vitest';
import { METHODS as METHODS_03 } from '../../generated/a2a/0.3/methods.js';
import { METHODS, METHOD_NAMES, isMethodName } from '../../generated/a2a/1.0/methods.js';
import { TASK_STATES, canTransition, isInterruptedState, isTerminalState, TERMINAL_STATES } from '../../generated/a2a/1.0/task-states.js';
import type { TaskState } from '../../generated/a2a/1.0/types.js';
import { CONTROL_ACTIONS, CONTROL_API, isControlActionName } from '../../generated/control/api.js';
import { A2A_0_3_REST } from '../../src/protocol/a2a-schema.js';

describe('the method registry', () => {
  it('holds exactly the 11 A2A 1.0 methods and none of the 0.3 names', () => {
    expect([...METHOD_NAMES].sort()).toEqual(
      [
        'SendMessage',
        'SendStreamingMessage',
        'GetTask',
        'ListTasks',
        'CancelTask',
        'SubscribeToTask',
        'CreateTaskPushNotificationConfig',
        'GetTaskPushNotificationConfig',
        'ListTaskPushNotificationConfigs',
        'DeleteTaskPushNotificationConfig',
        'GetExtendedAgentCard',
      ].sort(),
    );
    for (const legacy of ['message/send', 'tasks/get', 'SetTaskPushNotificationConfig', 'ListTaskPushNotificationConfig']) {
      expect(isMethodName(legacy)).toBe(false);
    }
  });

  it('gives every 0.3 method with an HTTP route the request and response messages of spec/a2a/0.3/rest', () => {
    const missing = Object.values(METHODS_03).flatMap((method) => {
      if (method.http.length === 0) return [];
      const messages = method.restMessages;
      if (messages === null) return [`${method.name}: no restMessages`];
      return [messages.request, messages.response]
        .filter((def) => messages.family !== 'a2a/0.3/rest' || A2A_0_3_REST.document.$defs[def] === undefined)
        .map((def) => `${method.name}: ${messages.family} has no ${def}`);
    });
    expect(missing).toEqual([]);
  });

  it('marks streaming methods and the capability that gates each method', () => {
    const gated = Object.fromEntries(METHOD_NAMES.map((name) => [name, [METHODS[name].streaming, METHODS[name].capability]]));
    expect(gated).toMatchObject({
      SendMessage: [false, null],
      SendStreamingMessage: [true, 'streaming'],
      SubscribeToTask: [true, 'streaming'],
      GetTask: [false, null],
      CreateTaskPushNotificationConfig: [false, 'pushNotifications'],
      DeleteTaskPushNotificationConfig: [false, 'pushNotifications'],
      GetExtendedAgentCard: [false, 'extendedAgentCard'],
    });
  });

  it('lets params be omitted only where the request has no REQUIRED field', () => {
    const optional = METHOD_NAMES.filter((name) => METHODS[name].paramsOptional).sort();
    expect(optional).toEqual(['GetExtendedAgentCard', 'ListTasks']);
    for (const name of METHOD_NAMES) expect(METHODS[name].validateParams({}), name).toBe(METHODS[name].paramsOptional);
  });

  it('validates params tolerantly and results exactly', () => {
    const { validateParams, validateResult } = METHODS.GetTask;
    expect(validateParams({ id: 't-1', historyLength: 2, kind: 'ignored' })).toBe(true);
    expect(validateParams({ id: 't-1', historyLength: -1 })).toBe(false);
    expect(validateResult({ id: 't-1', status: { state: 'TASK_STATE_WORKING' } })).toBe(true);
    expect(validateResult({ id: 't-1', status: { state: 'TASK_STATE_WORKING' }, kind: 'task' })).toBe(false);
  });

  it('carries the proto HTTP routes with their tenant variants, and POST as well as GET for subscribe', () => {
    expect(METHODS.GetTask.http).toEqual([
      { verb: 'GET', path: '/tasks/{id=*}' },
      { verb: 'GET', path: '/{tenant}/tasks/{id=*}' },
    ]);
    expect(METHODS.SubscribeToTask.httpAlternates.map((route) => route.verb)).toEqual(['POST', 'POST']);
    for (const name of METHOD_NAMES)
      expect(
        METHODS[name].http.some((route) => route.path.startsWith('/{tenant}/')),
        name,
      ).toBe(true);
  });

  it('lists for each method the A2A errors it may return', () => {
    expect(METHODS.CancelTask.errors).toContain('TaskNotCancelableError');
    expect(METHODS.SubscribeToTask.errors).toEqual(expect.arrayContaining(['TaskNotFoundError', 'UnsupportedOperationError']));
    expect(METHODS.GetExtendedAgentCard.errors).toContain('ExtendedAgentCardNotConfiguredError');
  });
});

describe('the task state machine', () => {
  const states = Object.keys(TASK_STATES) as TaskState[];

  it('classes states as the spec does', () => {
    expect([...TERMINAL_STATES].sort()).toEqual([
      'TASK_STATE_CANCELED',
      'TASK_STATE_COMPLETED',
      'TASK_STATE_FAILED',
      'TASK_STATE_REJECTED',
    ]);
    expect(states.filter(isInterruptedState).sort()).toEqual(['TASK_STATE_AUTH_REQUIRED', 'TASK_STATE_INPUT_REQUIRED']);
    expect(isTerminalState('TASK_STATE_WORKING')).toBe(false);
  });

  it('never leaves a terminal state and never returns to SUBMITTED', () => {
    for (const from of states) {
      for (const to of states) {
        if (isTerminalState(from)) expect(canTransition(from, to), `${from} → ${to}`).toBe(false);
        if (to === 'TASK_STATE_SUBMITTED') expect(canTransition(from, to), `${from} → ${to}`).toBe(false);
      }
    }
  });

  it('can reach a terminal state from every state that is not terminal', () => {
    for (const from of states.filter((state) => !isTerminalState(state))) {
      expect(TASK_STATES[from].transitions.some(isTerminalState), from).toBe(true);
    }
  });

  it('lets an interrupted task resume', () => {
    expect(canTransition('TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_WORKING')).toBe(true);
    expect(canTransition('TASK_STATE_AUTH_REQUIRED', 'TASK_STATE_WORKING')).toBe(true);
  });
});

describe('the control API registry', () => {
  it('has every action of seed 001 §1.2, each with an exact validator', () => {
    expect(Object.keys(CONTROL_ACTIONS).sort()).toEqual(
      [
        'inbound.create',
        'inbound.update',
        'inbound.remove',
        'inbound.enable',
        'inbound.disable',
        'inbound.setAuth',
        'inbound.sendTest',
        'inbound.close',
        'outbound.create',
        'outbound.update',
        'outbound.remove',
        'outbound.enable',
        'outbound.disable',
        'outbound.refresh',
        'outbound.setAuth',
        'outbound.discover',
        'task.cancel',
        'session.cancel',
        'session.close',
        'push.retry',
        'push.delete',
        'task.prune',
      ].sort(),
    );
    expect(isControlActionName('inbound.explode')).toBe(false);
    expect(CONTROL_ACTIONS['inbound.create'].validate({ action: 'inbound.create', name: 'r', description: 'd', version: '0.1.0' })).toBe(
      true,
    );
    expect(CONTROL_ACTIONS['inbound.create'].validate({ action: 'inbound.create', name: 'r', description: 'd' })).toBe(false);
    expect(CONTROL_ACTIONS['inbound.setAuth'].validate({ action: 'inbound.setAuth', id: 'x', token: 's', extra: 1 })).toBe(false);
  });

  it('documents the read endpoints, their query parameters and the status codes', () => {
    expect(CONTROL_API.basePath).toBe('/a2a/api');
    const snapshot = CONTROL_API.endpoints.find((endpoint) => endpoint.method === 'GET' && endpoint.path === '/a2a/api');
    expect(snapshot && 'query' in snapshot ? snapshot.query.map((param) => param.name) : []).toEqual(
      expect.arrayContaining(['taskLimit', 'taskOffset', 'taskState', 'taskContextId', 'taskServerId']),
    );
    expect(CONTROL_API.statusCodes.map((row) => row.status)).toEqual([200, 400, 403, 404, 405, 409, 413, 415]);
  });

  it('filters tasks by exactly the task states of spec/a2a/1.0 (api.json lists them again, as a family of its own)', () => {
    const snapshot = CONTROL_API.endpoints.find((endpoint) => endpoint.method === 'GET' && endpoint.path === CONTROL_API.basePath);
    const taskState = snapshot && 'query' in snapshot ? snapshot.query.find((param) => param.name === 'taskState') : undefined;
    expect(taskState && 'values' in taskState ? [...taskState.values].sort() : []).toEqual(Object.keys(TASK_STATES).sort());
  });
});
