import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERRORS } from '../../generated/a2a/1.0/errors.js';
import { errorInfoOf } from '../helpers/errors.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { hubStores, sharedTestPostgres } from '../helpers/postgres.js';
import { send } from '../helpers/raw-http.js';

/**
 * Input built to hurt: bodies nested thousands of levels deep (written as text, since even
 * JSON.stringify overflows its stack on them), a path of 16,000 slashes, ids holding U+0000. On
 * every binding and version and on both stores, each is refused with a clear error at once, and
 * the hub keeps serving. What the shared case table (bindings.case.ts) cannot send as objects.
 */
const postgres = sharedTestPostgres();

const STORES = hubStores(postgres);

/** `levels` arrays, one in the other, as JSON text. */
const deep = (levels: number): string => `${'['.repeat(levels)}${']'.repeat(levels)}`;

/** A request per binding and version whose message metadata holds `value` (JSON text). */
const REQUESTS: readonly {
  readonly name: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: (value: string) => string;
  /** Reads the error's reason and the violated fields from the answer. */
  readonly refusal: (status: number, json: unknown) => { reason: string; fields: string[] };
}[] = [
  {
    name: 'JSON-RPC 1.0',
    path: '',
    headers: { 'a2a-version': '1.0' },
    body: (value) =>
      `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m-deep","role":"ROLE_USER","parts":[{"text":"x"}],"metadata":{"deep":${value}}}}}`,
    refusal: (status, json) => {
      expect(status).toBe(200);
      const error = (json as { error: { code: number; data: unknown[] } }).error;
      expect(error.code).toBe(ERRORS.InvalidParamsError.code);
      return { reason: errorInfoOf(error.data).reason, fields: violations(error.data) };
    },
  },
  {
    name: 'JSON-RPC 0.3',
    path: '',
    headers: { 'a2a-version': '0.3' },
    body: (value) =>
      `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","messageId":"m-deep","role":"user","parts":[{"kind":"text","text":"x"}],"metadata":{"deep":${value}}}}}`,
    refusal: (status, json) => {
      expect(status).toBe(200);
      const error = (json as { error: { code: number; data: { reason: string; fieldViolations?: { field: string }[] } } }).error;
      expect(error.code).toBe(ERRORS.InvalidParamsError.code);
      return { reason: error.data.reason, fields: (error.data.fieldViolations ?? []).map((violation) => violation.field) };
    },
  },
  {
    name: 'HTTP+JSON 1.0',
    path: '/message:send',
    headers: { 'a2a-version': '1.0' },
    body: (value) => `{"message":{"messageId":"m-deep","role":"ROLE_USER","parts":[{"text":"x"}],"metadata":{"deep":${value}}}}`,
    refusal: (status, json) => {
      expect(status).toBe(400);
      const error = (json as { error: { details: unknown[] } }).error;
      return { reason: errorInfoOf(error.details).reason, fields: violations(error.details) };
    },
  },
  {
    name: 'HTTP+JSON 0.3',
    path: '/v1/message:send',
    headers: { 'a2a-version': '0.3' },
    body: (value) => `{"message":{"messageId":"m-deep","role":"ROLE_USER","content":[{"text":"x"}],"metadata":{"deep":${value}}}}`,
    refusal: (status, json) => {
      expect(status).toBe(400);
      const data = (json as { data: { reason: string; fieldViolations?: { field: string }[] } }).data;
      return { reason: data.reason, fields: (data.fieldViolations ?? []).map((violation) => violation.field) };
    },
  },
];

function violations(details: readonly unknown[]): string[] {
  const badRequest = details.find((detail) => (detail as { '@type'?: string })['@type']?.endsWith('BadRequest')) as
    { fieldViolations: { field: string }[] } | undefined;
  return (badRequest?.fieldViolations ?? []).map((violation) => violation.field);
}

describe.each(STORES.map((store) => [store.name, store] as const))('hostile input on %s', (_name, store) => {
  let hub: TestHub;
  beforeAll(async () => {
    if (store.available) hub = await startTestHub(await store.options());
  });
  afterAll(async () => {
    await hub?.dispose();
  });

  describe.skipIf(!store.available)('on every binding and version', () => {
    it.each(REQUESTS.flatMap((request) => [5_000, 200_000].map((levels) => [request.name, levels, request] as const)))(
      '%s: metadata nested %i deep is refused as too deep, naming the field',
      async (_request, levels, request) => {
        const response = await send(`${hub.endpoint}${request.path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...request.headers },
          body: request.body(deep(levels)),
        });
        const refusal = request.refusal(response.status, JSON.parse(response.text));
        expect(refusal.reason).toBe(ERRORS.InvalidParamsError.reason);
        expect(refusal.fields).toHaveLength(1);
        expect(refusal.fields[0]).toMatch(/^(params\.)?message\.metadata\.deep\[0\]/);
        expect(response.text.length).toBeLessThan(4096);
      },
    );

    it('keeps serving: /livez, and a send right after', async () => {
      expect((await send(`${hub.url}/livez`)).status).toBe(200);
      const sent = await send(hub.endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
        body: REQUESTS[0]?.body(deep(10)),
      });
      expect(JSON.parse(sent.text)).toMatchObject({ result: { task: { status: { state: 'TASK_STATE_COMPLETED' } } } });
    });

    it('answers 20 GETs of a 16,000-slash path at once, and /livez beside them', async () => {
      const path = `${'/'.repeat(16_000)}x`;
      const answers = await Promise.all([...Array.from({ length: 20 }, () => send(`${hub.url}${path}`)), send(`${hub.url}/livez`)]);
      expect(answers.map((answer) => answer.status)).toEqual([...Array.from({ length: 20 }, () => 404), 200]);
    });

    it('refuses an HTTP+JSON task id holding U+0000 in its path with 400, naming the id', async () => {
      const response = await send(`${hub.endpoint}/tasks/a%00b`, { headers: { 'a2a-version': '1.0' } });
      expect(response.status).toBe(400);
      const error = (JSON.parse(response.text) as { error: { details: unknown[] } }).error;
      expect(errorInfoOf(error.details).reason).toBe(ERRORS.InvalidParamsError.reason);
      expect(violations(error.details)).toEqual(['id']);
    });
  });
});
