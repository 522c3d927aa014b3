import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { METHODS, type MethodName } from '../../generated/a2a/1.0/methods.js';
import { METHODS as METHODS_03, type MethodName as Method03 } from '../../generated/a2a/0.3/methods.js';
import { arbitraryFor } from '../../conformance/arbitraries/from-schema.js';
import { mutatedArbitrary } from '../../conformance/arbitraries/mutations.js';
import { REST_ACCEPT, RestTransport } from '../../conformance/core/rest-transport.js';
import { Rest03Transport } from '../../conformance/core/rest03-transport.js';
import { A2A_0_3, A2A_1_0 } from '../../src/protocol/a2a-schema.js';
import { matchRestRoute } from '../../src/protocol/rest-routes.js';
import { matchRest03Route } from '../../src/protocol/v03/rest-routes.js';
import { withInterfaceTenant } from '../../src/protocol/interface-tenant.js';
import { isRecord } from '../../src/support/records.js';

/*
 * Every value the suite's arbitraries can draw either reaches the route of its method, with each
 * path field arriving as the value drawn, or is excluded by the transport with a reason
 * (Transport.unsendable): never a URL built from `undefined`, never another route. The hub's own
 * route matcher reads the URLs back, as an agent would.
 */

const ENDPOINT = 'http://127.0.0.1:9/a2a/agent';
const PREFIX = new URL(ENDPOINT).pathname;
const RUNS = 300;

/** The path an agent's router sees below the interface, after URL parsing as the request line carries it. */
function subpathOf(url: string): string {
  const { pathname } = new URL(url);
  expect(pathname.startsWith(`${PREFIX}/`), `${url} is below ${ENDPOINT}`).toBe(true);
  return pathname.slice(PREFIX.length);
}

/** What the path of a field is sent as: the value itself, JSON text for garbage, `-` when absent or empty. */
function sentAs(value: unknown): string {
  return typeof value === 'string' && value !== '' ? value : value === undefined || value === '' ? '-' : JSON.stringify(value);
}

const METHODS_1_0 = Object.keys(METHODS) as MethodName[];

describe('the HTTP+JSON transport builds a URL for every value the arbitraries draw', () => {
  for (const tenant of [undefined, 'acme']) {
    const transport = new RestTransport({ endpoint: ENDPOINT, timeoutMs: 1000, ...(tenant === undefined ? {} : { tenant }) });
    for (const method of METHODS_1_0) {
      const def = METHODS[method].paramsType;
      const values = fc.oneof(
        arbitraryFor(A2A_1_0.document, def),
        mutatedArbitrary(A2A_1_0.document, def, { unknownMembers: false }).map((mutated) => mutated?.value),
        // The values that broke it: ids and tenants a URL path resolves away.
        fc.record({ id: fc.constantFrom('.', '..', 'a/b', '%2E', ' '), tenant: fc.constantFrom('.', '..', 'x', undefined) }),
      );
      it(`${method}${tenant === undefined ? '' : ' under the interface tenant'}`, () => {
        fc.assert(
          fc.property(values, (params) => {
            const reason = transport.unsendable(method, params);
            if (reason !== undefined) {
              expect(reason).toMatch(/carries \w+ in the URL path, and it cannot be "\.\.?"/);
              expect(() => transport.request(method, params, {}, REST_ACCEPT)).toThrow(reason);
              return;
            }
            const request = transport.request(method, params, {}, REST_ACCEPT);
            expect(request.url).not.toContain('undefined');
            const match = matchRestRoute(request.method, subpathOf(request.url));
            expect(match.kind, `${request.method} ${request.url}`).toBe('route');
            if (match.kind !== 'route') return;
            expect(match.route.method).toBe(method);
            const record = isRecord(params) ? params : {};
            for (const field of match.route.pathFields) {
              const drawn = field === 'tenant' ? withInterfaceTenant(record, tenant)['tenant'] : record[field];
              const wanted = field === 'tenant' && typeof drawn === 'string' ? drawn : sentAs(drawn);
              expect(match.pathParams[field], field).toBe(wanted);
            }
          }),
          { numRuns: RUNS },
        );
      });
    }
  }
});

describe("0.3's HTTP+JSON transport builds a URL for every value the arbitraries draw", () => {
  const transport = new Rest03Transport({ endpoint: ENDPOINT, timeoutMs: 1000 });
  for (const method of Object.keys(METHODS_03) as Method03[]) {
    const def = METHODS_03[method].paramsType;
    it(method, () => {
      fc.assert(
        fc.property(
          fc.oneof(
            arbitraryFor(A2A_0_3.document, def),
            fc.record({ id: fc.constantFrom('.', '..', 'a/b'), taskId: fc.constantFrom('.', '..', 'x') }),
          ),
          (params) => {
            const reason = transport.unsendable(method, params);
            if (reason !== undefined) {
              expect(reason).toMatch(/carries \w+ in the URL path, and it cannot be "\.\.?"/);
              return;
            }
            const request = transport.request(method, params, {}, 'application/json');
            expect(request.url).not.toContain('undefined');
            const match = matchRest03Route(request.method, subpathOf(request.url));
            expect(match.kind, `${request.method} ${request.url}`).toBe('route');
            if (match.kind === 'route') expect(match.route.method).toBe(method);
          },
        ),
        { numRuns: RUNS },
      );
    });
  }
});
