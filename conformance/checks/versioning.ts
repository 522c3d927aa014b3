import type { Check, CheckContext } from '../core/check.js';
import type { Exchange } from '../core/exchange.js';
import type { CallOptions, RpcExchange } from '../core/transport.js';
import { declaredExtensions, errorCodeOf, interfacesOf, isRecord, observedOf, reasonOf, TEST_DIRECTIVES_EXTENSION, unknownTaskId, withTenant } from './discovery.js';

const VERSION_NOT_SUPPORTED = { code: -32009, reason: 'VERSION_NOT_SUPPORTED' } as const;
const UNKNOWN_EXTENSION = 'https://example.invalid/ext/v1';

/**
 * How a GetTask for an unknown id fared: `served` (TaskNotFoundError, so the 1.0 method was
 * found and run), `refused` (VersionNotSupportedError) or anything else.
 */
type Outcome = 'served' | 'refused' | 'other';

function outcomeOf(exchange: RpcExchange): Outcome {
  if (exchange.error?.code === -32001) return 'served';
  if (exchange.error?.code === -32009) return 'refused';
  return 'other';
}

/** GetTask for an unknown id, with the version the options carry (1.0 unless told otherwise). */
async function probe(context: CheckContext, options: CallOptions = {}): Promise<RpcExchange> {
  return context.transport.call('GetTask', withTenant(context, { id: unknownTaskId() }), { ...options, headers: { ...requiredExtensionsHeader(context), ...options.headers } });
}

/** A2A-Extensions naming the card's required extensions, so that VER-007 does not get in the way of other checks. */
function requiredExtensionsHeader(context: CheckContext): Record<string, string> {
  const required = declaredExtensions(context).filter((entry) => entry.required);
  return required.length === 0 ? {} : { 'a2a-extensions': required.map((entry) => entry.uri).join(', ') };
}

function expectServed(context: CheckContext, requirement: string, exchange: RpcExchange, what: string): boolean {
  if (outcomeOf(exchange) === 'served') {
    context.pass(requirement, `${what}: served (TaskNotFoundError for an unknown id)`);
    return true;
  }
  context.fail(requirement, { message: `${what} was not served with 1.0 semantics`, expected: 'GetTask for an unknown id answered with error -32001 (TaskNotFoundError)', observed: observedOf(exchange), exchange });
  return false;
}

/** The selected interface also declares 0.3 at the same URL: an absent header legitimately selects 0.3 there. */
function dualStack(context: CheckContext): boolean {
  return interfacesOf(context).some((entry) => entry.url === context.transport.endpoint && typeof entry.protocolVersion === 'string' && entry.protocolVersion.startsWith('0.'));
}

/** The A2A-Extensions response header as a list of URIs. */
function extensionsHeader(exchange: Exchange): string[] | undefined {
  const value = exchange.headers['a2a-extensions'];
  return value === undefined ? undefined : value.split(',').map((uri) => uri.trim()).filter((uri) => uri !== '');
}

export const versioningChecks: readonly Check[] = [
  {
    id: 'version-1-0',
    title: 'A2A-Version 1.0 and 1.0.1 are served with 1.0 semantics',
    requirements: ['VER-001', 'VER-004'],
    async run(context) {
      expectServed(context, 'VER-001', await probe(context, { headers: { 'a2a-version': '1.0' } }), 'GetTask with A2A-Version: 1.0');
      const sent = await context.transport.call('SendMessage', withTenant(context, { message: context.message('conformance: version probe') }), { headers: { 'a2a-version': '1.0', ...requiredExtensionsHeader(context) } });
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
      const patched = await probe(context, { headers: { 'a2a-version': '1.0.1' } });
      if (outcomeOf(patched) === 'refused') {
        context.fail('VER-004', { message: 'A2A-Version: 1.0.1 was refused as an unsupported version', expected: 'served exactly like 1.0 (patch versions never affect negotiation)', observed: observedOf(patched), exchange: patched });
      } else {
        expectServed(context, 'VER-004', patched, 'GetTask with A2A-Version: 1.0.1');
      }
    },
  },
  {
    id: 'version-unsupported',
    title: 'Unsupported versions are refused with VersionNotSupportedError',
    requirements: ['VER-002'],
    async run(context) {
      for (const version of ['0.5', '99.0']) {
        context.expectError('VER-002', await probe(context, { headers: { 'a2a-version': version } }), VERSION_NOT_SUPPORTED);
      }
    },
  },
  {
    id: 'version-absent',
    title: 'A request without A2A-Version is taken as 0.3',
    requirements: ['VER-003'],
    async run(context) {
      if (dualStack(context)) {
        context.skip('VER-003', 'the endpoint also declares 0.3, which an absent A2A-Version selects');
        return;
      }
      const cases: [string, RpcExchange][] = [
        ['no A2A-Version header', await probe(context, { noVersionHeader: true })],
        ['an empty A2A-Version header', await probe(context, { noVersionHeader: true, headers: { 'a2a-version': '' } })],
      ];
      for (const [what, exchange] of cases) {
        const outcome = outcomeOf(exchange);
        if (outcome === 'refused') {
          context.pass('VER-003', `${what}: refused with -32009 (taken as 0.3)`);
        } else if (outcome === 'served') {
          context.warn('VER-003', {
            message: `${what} was served as 1.0: lenient, and widespread among 1.0 servers, but spec §3.6.2 takes an absent or empty A2A-Version as 0.3, which a 1.0-only interface must refuse`,
            expected: 'error -32009 (VersionNotSupportedError)',
            observed: observedOf(exchange),
            exchange,
          });
        } else {
          context.fail('VER-003', { message: `${what} was neither refused as 0.3 nor served`, expected: 'error -32009 (VersionNotSupportedError); serving it as 1.0 would only be a warning', observed: observedOf(exchange), exchange });
        }
      }
    },
  },
  {
    id: 'version-query',
    title: 'The A2A-Version query parameter acts like the header',
    requirements: ['VER-005'],
    async run(context) {
      const reference = outcomeOf(await probe(context, { noVersionHeader: true }));
      const cases: [string, Outcome][] = [
        ['A2A-Version=1.0', 'served'],
        ['A2A-Version=99.0', 'refused'],
      ];
      for (const [query, wanted] of cases) {
        const exchange = await probe(context, { noVersionHeader: true, query });
        const outcome = outcomeOf(exchange);
        const expected = wanted === 'served' ? 'served like A2A-Version: 1.0 (error -32001 for an unknown task)' : 'error -32009 (VersionNotSupportedError)';
        if (outcome === wanted) context.pass('VER-005', `?${query}: ${wanted}`);
        else if (outcome === reference) context.warn('VER-005', { message: `?${query} is ignored: the request fares as if no version were given`, expected, observed: observedOf(exchange), exchange });
        else context.fail('VER-005', { message: `?${query} is not treated like the A2A-Version header`, expected, observed: observedOf(exchange), exchange });
      }
    },
  },
  {
    id: 'version-header-case',
    title: 'A2A-Version is matched regardless of header-name case',
    requirements: ['VER-006'],
    async run(context) {
      for (const name of ['a2a-version', 'A2A-Version', 'A2A-VERSION']) {
        context.expectError('VER-006', await probe(context, { noVersionHeader: true, headers: { [name]: '99.0' } }), VERSION_NOT_SUPPORTED);
        expectServed(context, 'VER-006', await probe(context, { noVersionHeader: true, headers: { [name]: '1.0' } }), `${name}: 1.0`);
      }
    },
  },
  {
    id: 'extensions-required',
    title: 'A required extension missing from A2A-Extensions is refused with -32008',
    requirements: ['VER-007'],
    async run(context) {
      const required = declaredExtensions(context).filter((entry) => entry.required);
      if (required.length === 0) {
        context.skip('VER-007', 'the card declares no extension with required: true');
        return;
      }
      const without = await context.transport.call('GetTask', withTenant(context, { id: unknownTaskId() }));
      context.expectError('VER-007', without, { code: -32008, reason: 'EXTENSION_SUPPORT_REQUIRED' });
      const withAll = await probe(context);
      if (withAll.error?.code === -32008) {
        context.fail('VER-007', { message: 'a request listing every required extension is still refused', expected: 'served once A2A-Extensions lists the required URIs', observed: observedOf(withAll), exchange: withAll });
      } else {
        context.pass('VER-007', 'served once A2A-Extensions lists the required extensions');
      }
    },
  },
  {
    id: 'extensions-unknown',
    title: 'An unknown extension URI in A2A-Extensions is ignored',
    requirements: ['VER-008'],
    async run(context) {
      const baseline = await probe(context);
      const required = requiredExtensionsHeader(context)['a2a-extensions'];
      const exchange = await probe(context, { headers: { 'a2a-extensions': [UNKNOWN_EXTENSION, ...(required ? [required] : [])].join(', ') } });
      const same = exchange.status === baseline.status && exchange.error?.code === baseline.error?.code && ('result' in exchange) === ('result' in baseline);
      if (same && outcomeOf(exchange) === 'served') context.pass('VER-008', `A2A-Extensions: ${UNKNOWN_EXTENSION} was ignored`);
      else {
        context.warn('VER-008', {
          message: 'an unsupported extension URI in A2A-Extensions changed the outcome',
          expected: `the same answer as without the header: ${observedOf(baseline)}`,
          observed: observedOf(exchange),
          exchange,
        });
      }
    },
  },
  {
    id: 'extensions-echo',
    title: 'Activated extensions are echoed in an A2A-Extensions response header',
    requirements: ['VER-009'],
    async run(context) {
      const declared = declaredExtensions(context).map((entry) => entry.uri);
      if (declared.length === 0) {
        context.skip('VER-009', 'the card declares no extension');
        return;
      }
      const directive = declared.includes(TEST_DIRECTIVES_EXTENSION) ? { metadata: { 'a2a-hub/test': { outcome: 'completed' } } } : {};
      const exchange = await context.transport.call('SendMessage', withTenant(context, { message: context.message('conformance: extension activation probe', directive) }), {
        headers: { 'a2a-extensions': declared.join(', ') },
      });
      const echoed = extensionsHeader(exchange);
      if (exchange.error !== undefined || exchange.status !== 200) {
        context.warn('VER-009', { message: 'a request activating the declared extensions was not served, so no activation could be seen', expected: 'a served request whose response lists the activated extensions', observed: observedOf(exchange), exchange });
      } else if (echoed === undefined) {
        context.warn('VER-009', { message: 'the response to a request activating declared extensions has no A2A-Extensions header', expected: `an A2A-Extensions response header listing the extensions activated among ${declared.join(', ')}`, observed: 'no A2A-Extensions header', exchange });
      } else {
        const stray = echoed.filter((uri) => !declared.includes(uri));
        if (stray.length === 0) context.pass('VER-009', `A2A-Extensions: ${echoed.join(', ') || '(empty)'}`);
        else context.warn('VER-009', { message: 'the A2A-Extensions response header lists extensions that were not requested', expected: `a subset of ${declared.join(', ')}`, observed: echoed.join(', '), exchange });
      }
    },
  },
  {
    id: 'tenant',
    title: 'Requests carrying a declared tenant are served for it',
    requirements: ['VER-010'],
    async run(context) {
      const tenanted = interfacesOf(context).filter((entry) => typeof entry.tenant === 'string' && entry.tenant !== '');
      if (tenanted.length === 0) {
        context.skip('VER-010', 'no interface declares a tenant');
        return;
      }
      let probed = 0;
      for (const entry of tenanted) {
        const tenant = entry.tenant as string;
        const id = unknownTaskId();
        if (entry.protocolBinding === 'JSONRPC') {
          probed += 1;
          const body = JSON.stringify({ jsonrpc: '2.0', id: 'conform-tenant', method: 'GetTask', params: { tenant, id } });
          const exchange = await context.transport.raw(body, { url: entry.url, headers: { 'content-type': 'application/json', accept: 'application/json', 'a2a-version': '1.0', ...requiredExtensionsHeader(context) } });
          if (errorCodeOf(exchange) === -32001) context.pass('VER-010', `tenant ${tenant} at ${entry.url}: served`);
          else context.fail('VER-010', { message: `a request carrying tenant ${tenant} was not served`, expected: 'GetTask {tenant, id} for an unknown id answered -32001, not a 404 or validation error', observed: observedOf(exchange), exchange });
        } else if (entry.protocolBinding === 'HTTP+JSON') {
          probed += 1;
          const url = `${entry.url.replace(/\/+$/, '')}/${encodeURIComponent(tenant)}/tasks/${encodeURIComponent(id)}`;
          const exchange = await context.transport.raw(undefined, { method: 'GET', url, headers: { accept: 'application/a2a+json, application/json', 'a2a-version': '1.0', ...requiredExtensionsHeader(context) } });
          const reason = reasonOf(isRecord(exchange.json) ? exchange.json['error'] : undefined);
          if (exchange.status === 404 && reason === 'TASK_NOT_FOUND') context.pass('VER-010', `tenant ${tenant} at ${url}: served`);
          else context.fail('VER-010', { message: `the /{tenant}/ route for ${tenant} was not served`, expected: 'HTTP 404 with ErrorInfo reason TASK_NOT_FOUND (the route exists; the task does not)', observed: observedOf(exchange), exchange });
        }
      }
      if (probed === 0) context.skip('VER-010', 'no tenant-declaring interface uses a binding the suite speaks');
    },
  },
];
