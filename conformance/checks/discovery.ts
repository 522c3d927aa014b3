import { randomUUID } from 'node:crypto';
import { isTerminalState } from '../../generated/a2a/1.0/task-states.js';
import { MEDIA_TYPES, PROTOCOL_VERSION, WELL_KNOWN_AGENT_CARD_PATH } from '../../generated/a2a/1.0/protocol.js';
import { TEST_DIRECTIVES_EXTENSION, testDirectiveMetadata } from '../../generated/hub/test-directives.js';
import { isRecord } from '../../src/support/records.js';
import { errorLabel, isError, observedOf } from '../core/answers.js';
import type { Check } from '../core/check.js';
import { VERSION_HEADER } from '../core/exchange.js';
import type { MethodCall } from '../core/transport.js';
import { cardStructureProblems, legacyCardProblems } from './support/card-problems.js';
import { capabilityDeclared, cardEvidence, classifyUrl, declaredExtensions, interfacesOf, NO_CARD } from './support/card.js';
import { stateOfOutcome } from './support/directives.js';
import { fillRoute, routeOf } from '../../src/protocol/rest-routes.js';
import { looksLikeRestRoute, probeInterface, REST_ACCEPT, type InterfaceProbe } from './support/interfaces.js';
import { checkTimestamps, reportNaming } from './support/response-values.js';
import { expectRefusedStream } from './support/streams.js';
import { probeTask, taskRefOf, unknownTaskId } from './support/tasks.js';
import { stateLabel } from './support/states.js';
import { skipAll } from './support/verdicts.js';
import { trimTrailing } from '../../src/support/trim.js';

const PLACEHOLDER_SKILL = { id: 'placeholder', name: 'placeholder', description: 'placeholder', tags: ['placeholder'] };

export const discoveryChecks: readonly Check[] = [
  {
    id: 'card-well-known',
    once: true,
    title: `The agent card is served at ${WELL_KNOWN_AGENT_CARD_PATH}`,
    requirements: ['CARD-001'],
    async run(context) {
      const base = context.target.cardUrl ?? context.target.endpoint;
      const url = new URL(WELL_KNOWN_AGENT_CARD_PATH, new URL(base).origin).href;
      const exchange = await context.transport.raw(undefined, { method: 'GET', url, headers: { accept: MEDIA_TYPES.json } });
      const card = exchange.json;
      const expected = `HTTP 200 with a JSON A2A 1.0 AgentCard at ${url}`;
      if (exchange.status !== 200 || !isRecord(card)) {
        context.fail('CARD-001', {
          message: 'no JSON agent card at the well-known location',
          expected,
          observed: observedOf(exchange),
          exchange,
        });
      } else if (!Array.isArray(card['supportedInterfaces'])) {
        const legacy = 'url' in card || 'protocolVersion' in card;
        context.fail('CARD-001', {
          message: legacy
            ? 'the well-known location serves a 0.3 agent card'
            : 'the well-known location serves JSON that is not an AgentCard',
          expected,
          observed: legacy
            ? `a card with top-level url/protocolVersion ${JSON.stringify(card['protocolVersion'])} and no supportedInterfaces`
            : exchange.bodyText.slice(0, 300),
          exchange,
        });
      } else {
        context.pass('CARD-001', `served at ${url}`);
      }
    },
  },
  {
    id: 'card-shape',
    once: true,
    title: 'The public card is a valid 1.0 AgentCard: members, names, no 0.3 shapes',
    requirements: ['CARD-002', 'CARD-003', 'CARD-006', 'CARD-007'],
    run(context) {
      if (context.target.assumedCard) {
        skipAll(context, ['CARD-002', 'CARD-003', 'CARD-006', 'CARD-007'], 'no-card', NO_CARD);
        return Promise.resolve();
      }
      const card = context.target.card as unknown;
      const evidence = cardEvidence(context);
      let value = card;
      if (isRecord(card) && Array.isArray(card['skills']) && card['skills'].length === 0) {
        context.warn('CARD-002', {
          message: 'the card lists no skills',
          expected: 'at least one skill',
          observed: '"skills": []',
          path: 'skills',
          ...evidence,
        });
        value = { ...card, skills: [PLACEHOLDER_SKILL] };
      }
      if (context.checkShape('CARD-002', 'AgentCard', value, { ...evidence })) context.pass('CARD-002', 'the card is a valid AgentCard');

      const structure = cardStructureProblems(card);
      for (const problem of structure)
        context.fail('CARD-003', {
          message: 'a card member is missing a required field or malformed',
          expected:
            'url, protocolBinding, protocolVersion per interface; id, name, description, tags per skill; url and organization in a provider',
          observed: problem.problem,
          path: problem.path,
          ...evidence,
        });
      if (structure.length === 0) context.pass('CARD-003');

      reportNaming(context, card, 'the agent card', context.target.cardExchange);

      const legacy = legacyCardProblems(card);
      for (const problem of legacy)
        context.fail('CARD-007', {
          message: 'the card uses a 0.3-only shape',
          expected:
            'no top-level url, preferredTransport, protocolVersion or additionalInterfaces; securitySchemes entries with exactly one wrapper member and no type',
          observed: problem.problem,
          path: problem.path,
          ...evidence,
        });
      if (legacy.length === 0) context.pass('CARD-007');
      return Promise.resolve();
    },
  },
  {
    id: 'card-caching',
    once: true,
    title: 'The card response carries Cache-Control max-age and an ETag that revalidates',
    requirements: ['CARD-008'],
    async run(context) {
      const fetched = context.target.cardExchange;
      const cardUrl = context.target.cardUrl;
      if (fetched === undefined || cardUrl === undefined) {
        context.skip('CARD-008', 'no-card', NO_CARD);
        return;
      }
      const cacheControl = fetched.headers['cache-control'] ?? '';
      const etag = fetched.headers['etag'];
      if (/\bmax-age=\d+/i.test(cacheControl)) context.pass('CARD-008', `Cache-Control: ${cacheControl}`);
      else
        context.warn('CARD-008', {
          message: 'the card response has no Cache-Control max-age',
          expected: 'Cache-Control: …, max-age=<seconds>',
          observed: cacheControl === '' ? 'no Cache-Control header' : `Cache-Control: ${cacheControl}`,
          exchange: fetched,
        });
      if (etag === undefined || etag === '') {
        context.warn('CARD-008', {
          message: 'the card response has no ETag',
          expected: 'an ETag header',
          observed: 'no ETag header',
          exchange: fetched,
        });
        return;
      }
      const revalidated = await context.transport.raw(undefined, {
        method: 'GET',
        url: cardUrl,
        headers: { accept: MEDIA_TYPES.json, 'if-none-match': etag },
      });
      if (revalidated.status === 304 || revalidated.status === 200)
        context.pass('CARD-008', `ETag ${etag}; If-None-Match answered ${revalidated.status}`);
      else
        context.warn('CARD-008', {
          message: 'a conditional GET with the card ETag fails',
          expected: 'HTTP 304 (or 200 with the card)',
          observed: observedOf(revalidated),
          exchange: revalidated,
        });
    },
  },
  {
    id: 'card-bindings',
    once: true,
    title: 'Every declared interface answers in its binding and version; no undeclared HTTP+JSON routes',
    requirements: ['CARD-004', 'CARD-005'],
    async run(context) {
      if (context.target.assumedCard) {
        skipAll(context, ['CARD-004', 'CARD-005'], 'no-card', NO_CARD);
        return;
      }
      const interfaces = interfacesOf(context);
      const taskId = unknownTaskId();
      let probed = 0;
      for (const [index, entry] of interfaces.entries()) {
        const probe = await probeInterface(context, entry, index, taskId);
        if (probe === undefined) continue;
        probed += 1;
        if (probe.ok) context.pass('CARD-005', `${probe.label} answered TaskNotFoundError in its binding`);
        else
          context.fail('CARD-005', {
            message: `${probe.label} does not answer a 1.0 request in its declared binding`,
            expected: probe.expected,
            observed: observedOf(probe.exchange),
            path: `supportedInterfaces[${index}]`,
            exchange: probe.exchange,
          });
      }
      if (probed === 0)
        context.skip(
          'CARD-005',
          'other-binding',
          'no declared interface uses a binding and version the suite speaks (JSONRPC or HTTP+JSON, 1.x)',
        );

      // HTTP+JSON routes answering where the card declares none.
      const restDeclared = new Set(
        interfaces.filter((entry) => entry.protocolBinding === 'HTTP+JSON').map((entry) => trimTrailing(String(entry.url), '/')),
      );
      const bases = new Set<string>();
      for (const entry of interfaces) {
        try {
          const url = new URL(entry.url);
          bases.add(trimTrailing(url.href, '/'));
          bases.add(url.origin);
        } catch {
          // a relative or gRPC url: CARD-011 reports it
        }
      }
      let found = false;
      for (const base of [...bases].filter((candidate) => !restDeclared.has(candidate))) {
        for (const [route, kind] of [
          [fillRoute(routeOf('GetTask', false), { id: taskId }) ?? '', 'task'],
          [fillRoute(routeOf('GetExtendedAgentCard', false), {}) ?? '', 'card'],
        ] as const) {
          const exchange = await context.transport.raw(undefined, {
            method: 'GET',
            url: `${base}${route}`,
            headers: { accept: REST_ACCEPT, [VERSION_HEADER]: PROTOCOL_VERSION },
          });
          if (looksLikeRestRoute(exchange, kind)) {
            found = true;
            context.fail('CARD-004', {
              message: `HTTP+JSON routes answer at ${base}, which no HTTP+JSON interface declares`,
              expected: 'every binding the agent serves declared in supportedInterfaces',
              observed: `GET ${base}${route}: ${observedOf(exchange)}`,
              exchange,
            });
          }
        }
      }
      if (!found) context.pass('CARD-004', `no undeclared HTTP+JSON routes at ${[...bases].join(', ') || 'the declared URLs'}`);
    },
  },
  {
    id: 'card-interface-urls',
    once: true,
    title: 'Interface URLs are absolute (and https outside loopback)',
    requirements: ['CARD-011'],
    run(context) {
      if (context.target.assumedCard) {
        context.skip('CARD-011', 'no-card', NO_CARD);
        return Promise.resolve();
      }
      const evidence = cardEvidence(context);
      for (const [index, entry] of interfacesOf(context).entries()) {
        if (entry.protocolBinding === 'GRPC') continue;
        const { verdict, reason } = classifyUrl(entry.url);
        const finding = {
          message: reason,
          expected: 'an absolute https URL (plain http only to loopback)',
          observed: JSON.stringify(entry.url),
          path: `supportedInterfaces[${index}].url`,
          ...evidence,
        };
        if (verdict === 'pass') context.pass('CARD-011', reason);
        else if (verdict === 'warn') context.warn('CARD-011', finding);
        else context.fail('CARD-011', finding);
      }
      return Promise.resolve();
    },
  },
  {
    id: 'bindings-equivalent',
    once: true,
    title: 'Every declared interface reports the same error for the same request',
    requirements: ['DATA-001'],
    async run(context) {
      const interfaces = interfacesOf(context);
      if (interfaces.length < 2) {
        context.skip('DATA-001', 'feature-absent', 'the card declares one interface');
        return;
      }
      const taskId = unknownTaskId();
      const probes: InterfaceProbe[] = [];
      for (const [index, entry] of interfaces.entries()) {
        const probe = await probeInterface(context, entry, index, taskId);
        if (probe !== undefined) probes.push(probe);
      }
      const [first, ...others] = probes;
      if (first === undefined || others.length === 0) {
        context.skip('DATA-001', 'other-binding', 'fewer than two declared interfaces use a binding and version the suite speaks');
        return;
      }
      for (const other of others) {
        if (other.errorType === first.errorType)
          context.pass('DATA-001', `${first.label} and ${other.label} both answer ${first.errorType}`);
        else
          context.fail('DATA-001', {
            message: 'two interfaces answer the same request differently',
            expected: `${other.label} answering like ${first.label}: ${first.errorType}`,
            observed: other.errorType,
            exchange: other.exchange,
          });
      }
    },
  },
  {
    id: 'task-timestamps',
    title: 'Timestamps and member names in task responses',
    requirements: ['DATA-002', 'CARD-006'],
    async run(context) {
      const sent = await context.transport.call('SendMessage', { message: context.message('conformance: timestamp probe') });
      let seen = isRecord(sent.result) ? checkTimestamps(context, sent.result, sent) : 0;
      if (isRecord(sent.result)) reportNaming(context, sent.result, 'the SendMessage result', sent);
      const task = isRecord(sent.result) && isRecord(sent.result['task']) ? sent.result['task'] : undefined;
      if (task !== undefined && typeof task['id'] === 'string') {
        const got = await context.transport.call('GetTask', { id: task['id'] });
        if (isRecord(got.result)) {
          seen += checkTimestamps(context, got.result, got);
          reportNaming(context, got.result, 'the GetTask result', got);
        }
      }
      if (seen === 0) context.skip('DATA-002', 'inconclusive', 'no timestamp was seen in the task responses');
    },
  },
  {
    id: 'test-directives',
    title: 'The card advertises the test-directive extension and a directive is obeyed',
    requirements: ['DIRECTIVES-001', 'DATA-002', 'CARD-006'],
    async run(context) {
      const extension = declaredExtensions(context).find((entry) => entry.uri === TEST_DIRECTIVES_EXTENSION);
      const evidence = cardEvidence(context);
      if (extension === undefined && context.profile.id !== 'directives') {
        skipAll(
          context,
          ['DIRECTIVES-001', 'DATA-002', 'CARD-006'],
          'feature-absent',
          'the card does not advertise the test directives, and the run does not use them (--profile directives)',
        );
        return;
      }
      if (extension === undefined) {
        context.warn('DIRECTIVES-001', {
          message: 'the run uses the test directives, but the card does not list their extension',
          expected: `capabilities.extensions containing {"uri": "${TEST_DIRECTIVES_EXTENSION}"}`,
          observed: JSON.stringify(declaredExtensions(context).map((entry) => entry.uri)),
          path: 'capabilities.extensions',
          ...evidence,
        });
      } else if (extension.required) {
        context.fail('DIRECTIVES-001', {
          message: 'the test-directive extension is declared required',
          expected: 'required absent or false: clients unaware of it must still be served',
          observed: 'required: true',
          path: 'capabilities.extensions',
          ...evidence,
        });
      } else {
        context.pass('DIRECTIVES-001', 'the card lists the test-directive extension, not required');
      }
      const metadata = testDirectiveMetadata({ outcome: 'input-required' });
      const exchange = await context.transport.call('SendMessage', {
        message: context.message('conformance: directive probe', { metadata }),
      });
      const task = isRecord(exchange.result) && isRecord(exchange.result['task']) ? exchange.result['task'] : undefined;
      const state = task !== undefined && isRecord(task['status']) ? task['status']['state'] : undefined;
      const wanted = stateOfOutcome('input-required');
      if (state === wanted) context.pass('DIRECTIVES-001', `outcome input-required produced ${String(wanted)}`);
      else
        context.fail('DIRECTIVES-001', {
          message: 'a test directive was not obeyed',
          expected: `metadata ${JSON.stringify(metadata)} ending in a task in ${String(wanted)}`,
          observed: state === undefined ? observedOf(exchange) : `state ${JSON.stringify(state)}`,
          exchange,
        });
      if (isRecord(exchange.result)) {
        checkTimestamps(context, exchange.result, exchange);
        reportNaming(context, exchange.result, 'the SendMessage result', exchange);
      }
      if (task !== undefined && typeof task['id'] === 'string') await context.transport.call('CancelTask', { id: task['id'] });
    },
  },
  {
    id: 'streaming-absent',
    title: `Without capabilities.streaming, SendStreamingMessage and SubscribeToTask are refused with ${errorLabel('UnsupportedOperationError')}`,
    requirements: ['SSE-001', 'SUB-001'],
    async run(context) {
      if (capabilityDeclared(context, 'streaming')) {
        skipAll(
          context,
          ['SSE-001', 'SUB-001'],
          'capability-declared',
          'the card declares capabilities.streaming: true; the refusal applies only without it',
        );
        return;
      }
      const streamed = await context.transport.stream(
        'SendStreamingMessage',
        { message: context.message('conformance: streaming must be refused') },
        { until: () => true },
      );
      expectRefusedStream(context, 'SSE-001', streamed);
      const { taskId, exchange } = await probeTask(context, { interrupted: true });
      if (taskId === undefined) {
        context.skip('SUB-001', 'precondition-not-met', `no task could be created to subscribe to (${observedOf(exchange)})`);
        return;
      }
      const state = taskRefOf(isRecord(exchange.result) ? exchange.result['task'] : undefined)?.state;
      // A terminal task's subscription is refused with the same error whether or not the agent streams.
      if (state !== undefined && isTerminalState(state)) {
        context.skip(
          'SUB-001',
          'precondition-not-met',
          `the task the agent made was already ${stateLabel(state)}, and SubscribeToTask on a terminal task is refused with streaming too`,
        );
        return;
      }
      const subscribed = await context.transport.stream('SubscribeToTask', { id: taskId }, { until: () => true });
      expectRefusedStream(context, 'SUB-001', subscribed);
    },
  },
  {
    id: 'push-absent',
    title: `Without capabilities.pushNotifications, the four push-config methods are refused with ${errorLabel('PushNotificationNotSupportedError')}`,
    requirements: ['PUSH-001'],
    async run(context) {
      if (capabilityDeclared(context, 'pushNotifications')) {
        context.skip(
          'PUSH-001',
          'capability-declared',
          'the card declares capabilities.pushNotifications: true; the refusal applies only without it',
        );
        return;
      }
      const { taskId = unknownTaskId() } = await probeTask(context);
      const configId = `conform-config-${randomUUID()}`;
      const calls: MethodCall[] = [
        ['CreateTaskPushNotificationConfig', { taskId, url: 'https://example.invalid/a2a-conformance-webhook' }],
        ['GetTaskPushNotificationConfig', { taskId, id: configId }],
        ['ListTaskPushNotificationConfigs', { taskId }],
        ['DeleteTaskPushNotificationConfig', { taskId, id: configId }],
      ];
      for (const [method, params] of calls) {
        context.expectError('PUSH-001', await context.transport.call(method, params), 'PushNotificationNotSupportedError');
      }
    },
  },
  {
    id: 'extended-card-absent',
    title: `Without capabilities.extendedAgentCard, GetExtendedAgentCard is refused with ${errorLabel('UnsupportedOperationError')}`,
    requirements: ['XCARD-001'],
    async run(context) {
      if (capabilityDeclared(context, 'extendedAgentCard')) {
        context.skip(
          'XCARD-001',
          'capability-declared',
          'the card declares capabilities.extendedAgentCard: true; the refusal applies only without it',
        );
        return;
      }
      context.expectError('XCARD-001', await context.transport.call('GetExtendedAgentCard', {}), 'UnsupportedOperationError');
    },
  },
  {
    id: 'extended-card',
    title: `An authenticated GetExtendedAgentCard returns a valid AgentCard (or ${errorLabel('ExtendedAgentCardNotConfiguredError')})`,
    requirements: ['XCARD-002', 'XCARD-004'],
    capability: 'extendedAgentCard',
    async run(context) {
      const exchange = await context.transport.call('GetExtendedAgentCard', {});
      if (exchange.status === 401) {
        skipAll(
          context,
          ['XCARD-002', 'XCARD-004'],
          'no-credentials',
          'GetExtendedAgentCard was refused with HTTP 401: give the suite credentials (--token) to check it',
        );
        return;
      }
      if (isError(exchange, 'ExtendedAgentCardNotConfiguredError')) {
        context.pass('XCARD-002', `answered ${errorLabel('ExtendedAgentCardNotConfiguredError')}: no extended card is configured`);
        context.skip(
          'XCARD-004',
          'feature-absent',
          `no extended card is configured (${errorLabel('ExtendedAgentCardNotConfiguredError')})`,
        );
        return;
      }
      const card = exchange.result;
      if (!isRecord(card) || !Array.isArray(card['supportedInterfaces'])) {
        for (const requirement of ['XCARD-002', 'XCARD-004'] as const) {
          context.fail(requirement, {
            message: `GetExtendedAgentCard returned neither an AgentCard nor ${errorLabel('ExtendedAgentCardNotConfiguredError')}`,
            expected: `a result that is an AgentCard, or error ${errorLabel('ExtendedAgentCardNotConfiguredError')}`,
            observed: observedOf(exchange),
            exchange,
          });
        }
        return;
      }
      context.pass('XCARD-002', 'returned an AgentCard');
      const problems = [...cardStructureProblems(card), ...legacyCardProblems(card)];
      for (const problem of problems)
        context.fail('XCARD-004', {
          message: 'the extended card fails the public card checks',
          expected: 'an AgentCard that passes CARD-002, CARD-003 and CARD-007',
          observed: problem.problem,
          path: `result.${problem.path}`,
          exchange,
        });
      const shaped = Array.isArray(card['skills']) && card['skills'].length === 0 ? { ...card, skills: [PLACEHOLDER_SKILL] } : card;
      if (context.checkShape('XCARD-004', 'AgentCard', shaped, { exchange, path: 'result' }) && problems.length === 0)
        context.pass('XCARD-004', 'the extended card is a valid AgentCard');
    },
  },
];
