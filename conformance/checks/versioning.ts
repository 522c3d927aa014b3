import { ERRORS } from '../../generated/a2a/1.0/errors.js';
import { HEADERS, PROTOCOL_VERSION, VERSION_QUERY_PARAMETER } from '../../generated/a2a/1.0/protocol.js';
import type { RequirementId } from '../../generated/conformance/requirements.js';
import { TEST_DIRECTIVES_EXTENSION, testDirectiveMetadata } from '../../generated/hub/test-directives.js';
import { isRecord } from '../../src/support/records.js';
import { errorLabel, isError, observedOf, reasonOf } from '../core/answers.js';
import type { Check, CheckContext } from '../core/check.js';
import { EXTENSIONS_HEADER, VERSION_HEADER, type Exchange } from '../core/exchange.js';
import type { CallOptions, RpcExchange } from '../core/transport.js';
import { declaredExtensions, interfacesOf } from './support/card.js';
import { finishedTask, unknownTaskId } from './support/tasks.js';
import { interfaceProbe } from '../../src/protocol/interface-probe.js';
import { A2A_0_3, A2A_1_0 } from '../../src/protocol/a2a-schema.js';
import { checkValue } from '../../src/protocol/validation.js';

const UNKNOWN_EXTENSION = 'https://example.invalid/ext/v1';
/** A version no agent serves. */
const FUTURE_VERSION = '99.0';
/** The patch release of the protocol version (patch versions never affect negotiation). */
const PATCH_VERSION = `${PROTOCOL_VERSION}.1`;

/**
 * How a GetTask for an unknown id fared: `served` (TaskNotFoundError, so the 1.0 method was
 * found and run), `refused` (VersionNotSupportedError) or anything else.
 */
type ProbeOutcome = 'served' | 'refused' | 'other';

function outcomeOf(exchange: RpcExchange): ProbeOutcome {
  if (isError(exchange, 'TaskNotFoundError')) return 'served';
  if (isError(exchange, 'VersionNotSupportedError')) return 'refused';
  return 'other';
}

/** GetTask for an unknown id, with the version the options carry (the protocol version unless told otherwise). */
async function probe(context: CheckContext, options: CallOptions = {}): Promise<RpcExchange> {
  return context.transport.call(
    'GetTask',
    { id: unknownTaskId() },
    {
      ...options,
      headers: { ...requiredExtensionsHeader(context), ...options.headers },
    },
  );
}

/** A2A-Extensions naming the card's required extensions, so that VER-007 does not get in the way of other checks. */
function requiredExtensionsHeader(context: CheckContext): Record<string, string> {
  const required = declaredExtensions(context).filter((entry) => entry.required);
  return required.length === 0 ? {} : { [EXTENSIONS_HEADER]: required.map((entry) => entry.uri).join(', ') };
}

function expectServed(context: CheckContext, requirement: RequirementId, exchange: RpcExchange, what: string): boolean {
  if (outcomeOf(exchange) === 'served') {
    context.pass(requirement, `${what}: served (TaskNotFoundError for an unknown id)`);
    return true;
  }
  context.fail(requirement, {
    message: `${what} was not served with 1.0 semantics`,
    expected: `GetTask for an unknown id answered with error ${errorLabel('TaskNotFoundError')}`,
    observed: observedOf(exchange),
    exchange,
  });
  return false;
}

/** The selected interface also declares 0.3 at the same URL: an absent header legitimately selects 0.3 there. */
function dualStack(context: CheckContext): boolean {
  return interfacesOf(context).some(
    (entry) =>
      entry.url === context.transport.endpoint && typeof entry.protocolVersion === 'string' && entry.protocolVersion.startsWith('0.'),
  );
}

/**
 * VER-003 where the endpoint also declares 0.3: a request without A2A-Version must then be
 * served in 0.3. GetTask with `{id}` is a valid request of both versions, so its answer shows
 * which one the agent took: a 0.3 Task (`kind`, kebab-case state) or a 1.0 one. Only JSON-RPC
 * has one endpoint for both; HTTP+JSON gives 0.3 routes of their own (`/v1/…`).
 */
async function absentSelects03(context: CheckContext): Promise<void> {
  if (context.transport.binding !== 'JSONRPC') {
    context.skip('VER-003', 'not-applicable', 'HTTP+JSON serves 0.3 on routes of its own (/v1/…), so the 1.0 routes say nothing of it');
    return;
  }
  const finished = await finishedTask(context, 'conformance: a task to read without a version');
  if (!finished.ok) {
    context.skip('VER-003', 'precondition-not-met', `no task to read: ${finished.reason}`);
    return;
  }
  const task = finished.value.task;
  const exchange = await context.transport.call('GetTask', { id: task.id }, { noVersionHeader: true });
  const what = `GetTask {"id"} for task ${task.id} without ${HEADERS.version}`;
  if (checkValue(A2A_0_3, 'Task', exchange.result, { flavour: 'input' }).ok) {
    context.pass('VER-003', `${what}: answered in 0.3 (a Task with kind "task" and a 0.3 state)`);
  } else if (checkValue(A2A_1_0, 'Task', exchange.result, { flavour: 'input' }).ok) {
    context.warn('VER-003', {
      message: `${what} was answered in 1.0, although the endpoint also declares 0.3, which spec §3.6.2 says an absent ${HEADERS.version} selects`,
      expected: 'the task as a 0.3 Task: kind "task", a kebab-case state',
      observed: observedOf(exchange),
      exchange,
    });
  } else {
    context.fail('VER-003', {
      message: `${what} was answered neither in 0.3 nor in 1.0`,
      expected: 'the task as a 0.3 Task (kind "task", a kebab-case state); a 1.0 Task would only be a warning',
      observed: observedOf(exchange),
      exchange,
    });
  }
}

/** The A2A-Extensions response header as a list of URIs. */
function extensionsHeader(exchange: Exchange): string[] | undefined {
  const value = exchange.headers[EXTENSIONS_HEADER];
  return value === undefined
    ? undefined
    : value
        .split(',')
        .map((uri) => uri.trim())
        .filter((uri) => uri !== '');
}

export const versioningChecks: readonly Check[] = [
  {
    id: 'version-1-0',
    title: 'A2A-Version 1.0 and 1.0.1 are served with 1.0 semantics',
    requirements: ['VER-001', 'VER-004'],
    async run(context) {
      expectServed(
        context,
        'VER-001',
        await probe(context, { headers: { [VERSION_HEADER]: PROTOCOL_VERSION } }),
        `GetTask with ${HEADERS.version}: ${PROTOCOL_VERSION}`,
      );
      const sent = await context.transport.call(
        'SendMessage',
        { message: context.message('conformance: version probe') },
        { headers: { [VERSION_HEADER]: PROTOCOL_VERSION, ...requiredExtensionsHeader(context) } },
      );
      const result = sent.result;
      if (isRecord(result) && Object.keys(result).length === 1 && (isRecord(result['task']) || isRecord(result['message']))) {
        context.pass('VER-001', `SendMessage returned a {"${Object.keys(result)[0] ?? ''}"} wrapper`);
      } else {
        context.fail('VER-001', {
          message: 'SendMessage with A2A-Version: 1.0 did not return a 1.0 SendMessageResponse',
          expected: 'a result with exactly one of "task" or "message" (not a bare Task or Message with kind)',
          observed: observedOf(sent),
          exchange: sent,
        });
      }
      const patched = await probe(context, { headers: { [VERSION_HEADER]: PATCH_VERSION } });
      if (outcomeOf(patched) === 'refused') {
        context.fail('VER-004', {
          message: `${HEADERS.version}: ${PATCH_VERSION} was refused as an unsupported version`,
          expected: `served exactly like ${PROTOCOL_VERSION} (patch versions never affect negotiation)`,
          observed: observedOf(patched),
          exchange: patched,
        });
      } else {
        expectServed(context, 'VER-004', patched, `GetTask with ${HEADERS.version}: ${PATCH_VERSION}`);
      }
    },
  },
  {
    id: 'version-unsupported',
    title: 'Unsupported versions are refused with VersionNotSupportedError',
    requirements: ['VER-002'],
    async run(context) {
      for (const version of ['0.5', FUTURE_VERSION]) {
        context.expectError('VER-002', await probe(context, { headers: { [VERSION_HEADER]: version } }), 'VersionNotSupportedError');
      }
    },
  },
  {
    id: 'version-absent',
    title: 'A request without A2A-Version is taken as 0.3',
    requirements: ['VER-003'],
    async run(context) {
      if (dualStack(context)) {
        await absentSelects03(context);
        return;
      }
      const cases: [string, RpcExchange][] = [
        [`no ${HEADERS.version} header`, await probe(context, { noVersionHeader: true })],
        [`an empty ${HEADERS.version} header`, await probe(context, { noVersionHeader: true, headers: { [VERSION_HEADER]: '' } })],
      ];
      for (const [what, exchange] of cases) {
        const outcome = outcomeOf(exchange);
        if (outcome === 'refused') {
          context.pass('VER-003', `${what}: refused with ${errorLabel('VersionNotSupportedError')} (taken as 0.3)`);
        } else if (outcome === 'served') {
          context.warn('VER-003', {
            message: `${what} was served as 1.0: lenient, and widespread among 1.0 servers, but spec §3.6.2 takes an absent or empty ${HEADERS.version} as 0.3, which a 1.0-only interface must refuse`,
            expected: `error ${errorLabel('VersionNotSupportedError')}`,
            observed: observedOf(exchange),
            exchange,
          });
        } else {
          context.fail('VER-003', {
            message: `${what} was neither refused as 0.3 nor served`,
            expected: `error ${errorLabel('VersionNotSupportedError')}; serving it as 1.0 would only be a warning`,
            observed: observedOf(exchange),
            exchange,
          });
        }
      }
    },
  },
  {
    id: 'version-query',
    title: `The ${VERSION_QUERY_PARAMETER} query parameter acts like the header`,
    requirements: ['VER-005'],
    async run(context) {
      const reference = outcomeOf(await probe(context, { noVersionHeader: true }));
      const cases: [string, ProbeOutcome][] = [
        [`${VERSION_QUERY_PARAMETER}=${PROTOCOL_VERSION}`, 'served'],
        [`${VERSION_QUERY_PARAMETER}=${FUTURE_VERSION}`, 'refused'],
      ];
      for (const [query, wanted] of cases) {
        const exchange = await probe(context, { noVersionHeader: true, query });
        const outcome = outcomeOf(exchange);
        const expected =
          wanted === 'served'
            ? `served like ${HEADERS.version}: ${PROTOCOL_VERSION} (error ${errorLabel('TaskNotFoundError')} for an unknown task)`
            : `error ${errorLabel('VersionNotSupportedError')}`;
        if (outcome === wanted) context.pass('VER-005', `?${query}: ${wanted}`);
        else if (outcome === reference)
          context.warn('VER-005', {
            message: `?${query} is ignored: the request fares as if no version were given`,
            expected,
            observed: observedOf(exchange),
            exchange,
          });
        else
          context.fail('VER-005', {
            message: `?${query} is not treated like the A2A-Version header`,
            expected,
            observed: observedOf(exchange),
            exchange,
          });
      }
    },
  },
  {
    id: 'version-header-case',
    title: `${HEADERS.version} is matched regardless of header-name case`,
    requirements: ['VER-006'],
    async run(context) {
      for (const name of [VERSION_HEADER, HEADERS.version, HEADERS.version.toUpperCase()]) {
        context.expectError(
          'VER-006',
          await probe(context, { noVersionHeader: true, headers: { [name]: FUTURE_VERSION } }),
          'VersionNotSupportedError',
        );
        expectServed(
          context,
          'VER-006',
          await probe(context, { noVersionHeader: true, headers: { [name]: PROTOCOL_VERSION } }),
          `${name}: ${PROTOCOL_VERSION}`,
        );
      }
    },
  },
  {
    id: 'extensions-required',
    title: `A required extension missing from ${HEADERS.extensions} is refused with ${errorLabel('ExtensionSupportRequiredError')}`,
    requirements: ['VER-007'],
    async run(context) {
      const required = declaredExtensions(context).filter((entry) => entry.required);
      if (required.length === 0) {
        context.skip('VER-007', 'feature-absent', 'the card declares no extension with required: true');
        return;
      }
      const without = await context.transport.call('GetTask', { id: unknownTaskId() });
      context.expectError('VER-007', without, 'ExtensionSupportRequiredError');
      const withAll = await probe(context);
      if (isError(withAll, 'ExtensionSupportRequiredError')) {
        context.fail('VER-007', {
          message: 'a request listing every required extension is still refused',
          expected: `served once ${HEADERS.extensions} lists the required URIs`,
          observed: observedOf(withAll),
          exchange: withAll,
        });
      } else {
        context.pass('VER-007', `served once ${HEADERS.extensions} lists the required extensions`);
      }
    },
  },
  {
    id: 'extensions-unknown',
    title: `An unknown extension URI in ${HEADERS.extensions} is ignored`,
    requirements: ['VER-008'],
    async run(context) {
      const baseline = await probe(context);
      const required = requiredExtensionsHeader(context)[EXTENSIONS_HEADER];
      const exchange = await probe(context, {
        headers: { [EXTENSIONS_HEADER]: [UNKNOWN_EXTENSION, ...(required ? [required] : [])].join(', ') },
      });
      const same =
        exchange.status === baseline.status &&
        exchange.error?.code === baseline.error?.code &&
        'result' in exchange === 'result' in baseline;
      if (same && outcomeOf(exchange) === 'served') context.pass('VER-008', `${HEADERS.extensions}: ${UNKNOWN_EXTENSION} was ignored`);
      else {
        context.warn('VER-008', {
          message: `an unsupported extension URI in ${HEADERS.extensions} changed the outcome`,
          expected: `the same answer as without the header: ${observedOf(baseline)}`,
          observed: observedOf(exchange),
          exchange,
        });
      }
    },
  },
  {
    id: 'extensions-echo',
    title: `Activated extensions are echoed in an ${HEADERS.extensions} response header`,
    requirements: ['VER-009'],
    async run(context) {
      const declared = declaredExtensions(context).map((entry) => entry.uri);
      if (declared.length === 0) {
        context.skip('VER-009', 'feature-absent', 'the card declares no extension');
        return;
      }
      const metadata = declared.includes(TEST_DIRECTIVES_EXTENSION) ? { metadata: testDirectiveMetadata({ outcome: 'completed' }) } : {};
      const exchange = await context.transport.call(
        'SendMessage',
        { message: context.message('conformance: extension activation probe', metadata) },
        {
          headers: { [EXTENSIONS_HEADER]: declared.join(', ') },
        },
      );
      const echoed = extensionsHeader(exchange);
      if (exchange.error !== undefined || exchange.status !== 200) {
        context.warn('VER-009', {
          message: 'a request activating the declared extensions was not served, so no activation could be seen',
          expected: 'a served request whose response lists the activated extensions',
          observed: observedOf(exchange),
          exchange,
        });
      } else if (echoed === undefined) {
        context.warn('VER-009', {
          message: `the response to a request activating declared extensions has no ${HEADERS.extensions} header`,
          expected: `an ${HEADERS.extensions} response header listing the extensions activated among ${declared.join(', ')}`,
          observed: `no ${HEADERS.extensions} header`,
          exchange,
        });
      } else {
        const stray = echoed.filter((uri) => !declared.includes(uri));
        if (stray.length === 0) context.pass('VER-009', `${HEADERS.extensions}: ${echoed.join(', ') || '(empty)'}`);
        else
          context.warn('VER-009', {
            message: `the ${HEADERS.extensions} response header lists extensions that were not requested`,
            expected: `a subset of ${declared.join(', ')}`,
            observed: echoed.join(', '),
            exchange,
          });
      }
    },
  },
  {
    id: 'tenant',
    once: true,
    title: 'Requests carrying a declared tenant are served for it',
    requirements: ['VER-010'],
    async run(context) {
      const tenanted = interfacesOf(context).filter((entry) => typeof entry.tenant === 'string' && entry.tenant !== '');
      if (tenanted.length === 0) {
        context.skip('VER-010', 'feature-absent', 'no interface declares a tenant');
        return;
      }
      let probed = 0;
      for (const entry of tenanted) {
        const tenant = entry.tenant as string;
        const probe = interfaceProbe(entry, unknownTaskId(), { rpcId: 'conform-tenant' });
        if (probe === undefined) continue;
        probed += 1;
        const { url } = probe;
        const exchange = await context.transport.raw(probe.body, {
          method: probe.method,
          url,
          headers: { ...probe.headers, ...requiredExtensionsHeader(context) },
        });
        if (entry.protocolBinding === 'JSONRPC') {
          if (isError(exchange, 'TaskNotFoundError')) context.pass('VER-010', `tenant ${tenant} at ${entry.url}: served`);
          else
            context.fail('VER-010', {
              message: `a request carrying tenant ${tenant} was not served`,
              expected: `GetTask {tenant, id} for an unknown id answered ${errorLabel('TaskNotFoundError')}, not a 404 or validation error`,
              observed: observedOf(exchange),
              exchange,
            });
        } else {
          const reason = reasonOf(isRecord(exchange.json) ? exchange.json['error'] : undefined);
          const { httpStatus, reason: notFound } = ERRORS.TaskNotFoundError;
          if (exchange.status === httpStatus && reason === notFound) context.pass('VER-010', `tenant ${tenant} at ${url}: served`);
          else
            context.fail('VER-010', {
              message: `the /{tenant}/ route for ${tenant} was not served`,
              expected: `HTTP ${httpStatus} with ErrorInfo reason ${notFound} (the route exists; the task does not)`,
              observed: observedOf(exchange),
              exchange,
            });
        }
      }
      if (probed === 0) context.skip('VER-010', 'other-binding', 'no tenant-declaring interface uses a binding the suite speaks');
    },
  },
];
