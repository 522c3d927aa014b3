import { describe, expect, it } from 'vitest';
import { METHODS, type MethodName } from '../../generated/a2a/1.0/methods.js';
import { resolveRestCall } from '../../src/protocol/rest-request.js';
import { readQuery, writeQuery } from '../../src/protocol/rest-query.js';
import {
  fillRoute,
  matchRestRoute,
  namePatternOf,
  piecesOfName,
  resourceNameOf,
  REST_ROUTES,
  routeOf,
} from '../../src/protocol/rest-routes.js';
import { route03Of } from '../../src/protocol/v03/rest-routes.js';
import { restUrl, urlBelow } from '../../src/protocol/rest-url.js';

describe('REST routes compiled from methods.json', () => {
  it('has every annotated route of every method, tenant variants included', () => {
    const annotated = Object.values(METHODS).reduce((sum, method) => sum + method.http.length + method.httpAlternates.length, 0);
    expect(REST_ROUTES).toHaveLength(annotated);
    for (const method of Object.keys(METHODS) as MethodName[]) {
      expect(routeOf(method, false).tenant).toBe(false);
      expect(routeOf(method, true).pathFields).toContain('tenant');
    }
  });

  const cases: { given: [string, string]; want: ReturnType<typeof matchRestRoute> | { method: MethodName; pathParams: object } }[] = [
    { given: ['POST', '/message:send'], want: { method: 'SendMessage', pathParams: {} } },
    { given: ['POST', '/acme/message:stream'], want: { method: 'SendStreamingMessage', pathParams: { tenant: 'acme' } } },
    { given: ['GET', '/tasks/t-1'], want: { method: 'GetTask', pathParams: { id: 't-1' } } },
    { given: ['GET', '/tasks/a%3Ab'], want: { method: 'GetTask', pathParams: { id: 'a:b' } } },
    { given: ['GET', '/tasks'], want: { method: 'ListTasks', pathParams: {} } },
    { given: ['GET', '/acme/tasks'], want: { method: 'ListTasks', pathParams: { tenant: 'acme' } } },
    { given: ['POST', '/tasks/t-1:cancel'], want: { method: 'CancelTask', pathParams: { id: 't-1' } } },
    { given: ['GET', '/tasks/t-1:subscribe'], want: { method: 'SubscribeToTask', pathParams: { id: 't-1' } } },
    { given: ['POST', '/acme/tasks/t-1:subscribe'], want: { method: 'SubscribeToTask', pathParams: { tenant: 'acme', id: 't-1' } } },
    {
      given: ['POST', '/tasks/t-1/pushNotificationConfigs'],
      want: { method: 'CreateTaskPushNotificationConfig', pathParams: { taskId: 't-1' } },
    },
    {
      given: ['DELETE', '/tasks/t-1/pushNotificationConfigs/c-1'],
      want: { method: 'DeleteTaskPushNotificationConfig', pathParams: { taskId: 't-1', id: 'c-1' } },
    },
    { given: ['GET', '/extendedAgentCard'], want: { method: 'GetExtendedAgentCard', pathParams: {} } },
    { given: ['HEAD', '/tasks/t-1'], want: { method: 'GetTask', pathParams: { id: 't-1' } } },
    { given: ['POST', '/tasks/t-1'], want: { kind: 'wrong-verb', allowed: ['GET', 'HEAD'] } },
    { given: ['HEAD', '/message:send'], want: { kind: 'wrong-verb', allowed: ['POST'] } },
    { given: ['GET', '/message:send'], want: { kind: 'wrong-verb', allowed: ['POST'] } },
    { given: ['PUT', '/tasks/t-1:subscribe'], want: { kind: 'wrong-verb', allowed: ['GET', 'HEAD', 'POST'] } },
    { given: ['GET', '/tasks/t-1:frobnicate'], want: { kind: 'none' } },
    { given: ['GET', '/nothing/here/at/all'], want: { kind: 'none' } },
    { given: ['GET', '/tasks/'], want: { kind: 'none' } },
  ];
  const malformed = (method: MethodName, field: string) => ({ kind: 'malformed', route: routeOf(method, field === 'tenant'), field });
  cases.push(
    { given: ['GET', '/tasks/%E0%A4%A'], want: malformed('GetTask', 'id') as ReturnType<typeof matchRestRoute> },
    { given: ['POST', '/%E0/tasks/t-1:cancel'], want: malformed('CancelTask', 'tenant') as ReturnType<typeof matchRestRoute> },
  );
  it.each(cases)('$given.0 $given.1', ({ given, want }) => {
    const match = matchRestRoute(given[0], given[1]);
    if ('method' in want) {
      expect(match.kind).toBe('route');
      if (match.kind !== 'route') return;
      expect(match.route.method).toBe(want.method);
      expect(match.pathParams).toEqual(want.pathParams);
    } else expect(match).toEqual(want);
  });

  it('fills a route with percent-encoded values and reads them back', () => {
    const route = routeOf('CancelTask', true);
    const path = fillRoute(route, { tenant: 'a b', id: 'x/y:z' });
    expect(path).toBe('/a%20b/tasks/x%2Fy%3Az:cancel');
    const match = matchRestRoute('POST', path as string);
    expect(match.kind === 'route' && match.pathParams).toEqual({ tenant: 'a b', id: 'x/y:z' });
    expect(fillRoute(route, { tenant: 'a' })).toBeUndefined();
  });
});

describe('query parameters (§11.5)', () => {
  it('converts by the member type and accepts proto names', () => {
    const read = readQuery('ListTasksRequest', [
      ['pageSize', '10'],
      ['include_artifacts', 'true'],
      ['status', 'TASK_STATE_WORKING'],
      ['statusTimestampAfter', '2025-11-09T10:30:00Z'],
      ['A2A-Version', '1.0'],
    ]);
    expect(read).toEqual({
      ok: true,
      value: { pageSize: 10, includeArtifacts: true, status: 'TASK_STATE_WORKING', statusTimestampAfter: '2025-11-09T10:30:00Z' },
    });
  });

  const bad: { given: [string, string][]; field: string; says: RegExp }[] = [
    { given: [['pageSize', 'ten']], field: 'pageSize', says: /decimal integer/ },
    { given: [['pageSize', '1.5']], field: 'pageSize', says: /decimal integer/ },
    { given: [['includeArtifacts', 'yes']], field: 'includeArtifacts', says: /true or false/ },
    {
      given: [
        ['pageSize', '1'],
        ['pageSize', '2'],
      ],
      field: 'pageSize',
      says: /2 times/,
    },
    { given: [['colour', 'red']], field: 'colour', says: /not a query parameter of ListTasksRequest.*pageSize/ },
  ];
  it.each(bad)('refuses $given', ({ given, field, says }) => {
    const read = readQuery('ListTasksRequest', given);
    expect(read.ok).toBe(false);
    if (read.ok) return;
    expect(read.violations[0]?.field).toBe(field);
    expect(read.violations[0]?.description).toMatch(says);
  });

  it('reads a repeated field from repeated parameters and from comma lists alike', () => {
    // No GET route of A2A 1.0 has a repeated field, so the rule is shown on a message that has one.
    const read = readQuery('SendMessageConfiguration', [
      ['acceptedOutputModes', 'text/plain,application/json'],
      ['accepted_output_modes', 'image/png'],
    ]);
    expect(read).toEqual({ ok: true, value: { acceptedOutputModes: ['text/plain', 'application/json', 'image/png'] } });
    const nested = readQuery('SendMessageConfiguration', [['taskPushNotificationConfig', '{}']]);
    expect(nested.ok === false && nested.violations[0]).toMatchObject({ field: 'taskPushNotificationConfig' });
  });

  it('refuses a path field in the query', () => {
    const read = readQuery('GetTaskRequest', [['id', 'x']], ['id']);
    expect(read.ok === false && read.violations[0]?.description).toMatch(/from the path/);
  });

  it('writes what readQuery reads', () => {
    const params = { id: 't', historyLength: 3, includeArtifacts: false };
    const query = writeQuery(params, ['id']);
    expect(query.toString()).toBe('historyLength=3&includeArtifacts=false');
    expect(readQuery('GetTaskRequest', [...writeQuery({ historyLength: 3 }, [])])).toEqual({ ok: true, value: { historyLength: 3 } });
  });
});

describe('resolveRestCall', () => {
  const call = (verb: string, path: string, query: [string, string][], body?: unknown) => {
    const match = matchRestRoute(verb, path);
    if (match.kind !== 'route') throw new Error(`no route for ${verb} ${path}`);
    return resolveRestCall(match.route, match.pathParams, query, body);
  };

  it('assembles path, query and body into the request message', () => {
    expect(call('GET', '/acme/tasks/t-1', [['history_length', '2']])).toEqual({
      ok: true,
      method: 'GetTask',
      params: { tenant: 'acme', id: 't-1', historyLength: 2 },
    });
    const sent = call('POST', '/message:send', [], { message: { message_id: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }] } });
    expect(sent.ok && sent.params).toMatchObject({ message: { messageId: 'm' } });
    expect(call('POST', '/tasks/t-1:cancel', [], undefined)).toEqual({ ok: true, method: 'CancelTask', params: { id: 't-1' } });
  });

  it('names the field of every refusal', () => {
    const cases: [ReturnType<typeof call>, string][] = [
      [call('GET', '/tasks', [['pageSize', '0']]), 'pageSize'],
      [call('GET', '/tasks', [['status', 'RUNNING']]), 'status'],
      [call('POST', '/tasks/t-1:cancel', [], { id: 't-2' }), 'id'],
      [call('POST', '/message:send', [], []), 'body'],
      [call('POST', '/message:send', [['historyLength', '1']], { message: {} }), 'historyLength'],
      [call('POST', '/message:send', [], {}), 'message'],
    ];
    for (const [result, field] of cases) {
      expect(result.ok).toBe(false);
      if (result.ok) continue;
      expect(result.error.definition.name).toBe('InvalidParamsError');
      expect(result.error.violations.map((violation) => violation.field)).toContain(field);
    }
  });
});

describe('URLs below an interface URL', () => {
  const path = fillRoute(routeOf('GetTask', false), { id: 'a/b' }) ?? '';

  it("puts the route into the interface's path, keeping its query before the route's own and dropping a fragment", () => {
    expect(urlBelow('https://x.example/a2a/?key=1#card', path, 'historyLength=2')).toBe(
      `https://x.example/a2a${path}?key=1&historyLength=2`,
    );
    expect(restUrl('https://x.example/a2a', routeOf('GetTask', true), { id: 'a/b', tenant: 'acme' })).toBe(
      `https://x.example/a2a${fillRoute(routeOf('GetTask', true), { id: 'a/b', tenant: 'acme' }) ?? ''}`,
    );
    expect(restUrl('https://x.example/a2a', routeOf('GetTask', false), {})).toBeUndefined();
  });

  it('joins a URL that does not parse as text, so that fetch refuses it with its own reason', () => {
    expect(urlBelow('not a url/', path, 'q=1')).toBe(`not a url${path}?q=1`);
  });
});

describe("resource names of 0.3's routes", () => {
  const route = route03Of('tasks/pushNotificationConfig/get');
  const cases: { given: { name: string; known?: string }; want: string[] | undefined }[] = [
    { given: { name: 'tasks/t-1/pushNotificationConfigs/c-1' }, want: ['t-1', 'c-1'] },
    // Ids are written as they are: the last takes the rest, an earlier one ends at the next literal.
    { given: { name: 'tasks/t-1/pushNotificationConfigs/c/1' }, want: ['t-1', 'c/1'] },
    { given: { name: 'tasks/a/b/pushNotificationConfigs/c' }, want: ['a/b', 'c'] },
    // A known task id wins over the first literal, so a task id holding the literal still reads.
    {
      given: { name: 'tasks/a/pushNotificationConfigs/b/pushNotificationConfigs/c', known: 'a/pushNotificationConfigs/b' },
      want: ['a/pushNotificationConfigs/b', 'c'],
    },
    { given: { name: 'tasks/a/pushNotificationConfigs/b/pushNotificationConfigs/c' }, want: ['a', 'b/pushNotificationConfigs/c'] },
    { given: { name: 'tasks/t-1/pushNotificationConfigs/' }, want: ['t-1', ''] },
    { given: { name: 'tasks//pushNotificationConfigs/c' }, want: undefined },
    { given: { name: 'tasks/t-1/pushNotificationConfigs' }, want: undefined },
    { given: { name: 'tasks/t-1/pushNotificationConfigsX/c' }, want: undefined },
    { given: { name: 'task/t-1/pushNotificationConfigs/c' }, want: undefined },
    { given: { name: '' }, want: undefined },
  ];

  it.each(cases)('$given.name → $want', ({ given, want }) => {
    expect(piecesOfName(route, 'name', given.name, [given.known])).toEqual(want);
  });

  it('writes a name from its ids and reads them back, and names its pattern', () => {
    expect(resourceNameOf(route, 'name', ['t/1', 'c 2'])).toBe('tasks/t/1/pushNotificationConfigs/c 2');
    expect(piecesOfName(route, 'name', resourceNameOf(route, 'name', ['t/1', 'c 2']), ['t/1'])).toEqual(['t/1', 'c 2']);
    expect(namePatternOf(route, 'name')).toBe('tasks/*/pushNotificationConfigs/*');
  });
});
