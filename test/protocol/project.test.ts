import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { arbitraryFor } from '../../conformance/arbitraries/from-schema.js';
import { mutatedArbitrary } from '../../conformance/arbitraries/mutations.js';
import { A2A_0_3, A2A_1_0 } from '../../src/protocol/a2a-schema.js';
import { projectToSchema } from '../../src/protocol/project.js';
import { checkValue } from '../../src/protocol/validation.js';

const DEFS = ['SendMessageRequest', 'Task', 'AgentCard', 'ListTasksRequest', 'StreamResponse', 'TaskPushNotificationConfig'] as const;

describe('projecting tolerant input onto the exact shape', () => {
  it.each(DEFS)('%s: leaves a valid value unchanged', (def) => {
    fc.assert(
      fc.property(arbitraryFor(A2A_1_0.document, def), (value) => {
        expect(projectToSchema(A2A_1_0.document, def, value)).toEqual(value);
      }),
      { numRuns: 100 },
    );
  });

  it.each(DEFS)('%s: drops unknown members wherever they are, so the result is exact', (def) => {
    const withUnknown = mutatedArbitrary(A2A_1_0.document, def, { unknownMembers: true }).filter(
      (sample) => sample?.mutation.kind === 'unknown-member',
    );
    fc.assert(
      fc.property(withUnknown, (sample) => {
        const projected = projectToSchema(A2A_1_0.document, def, sample?.value);
        expect(checkValue(A2A_1_0, def, projected, { flavour: 'exact' }).ok).toBe(true);
      }),
      { numRuns: 100 },
    );
  });

  it('of union branches without a const to tell them apart, keeps the one declaring most of the value', () => {
    // 0.3's tasks/pushNotificationConfig/get params: TaskIdParams | GetTaskPushNotificationConfigParams.
    const def = 'GetTaskPushNotificationConfigRequestParams';
    expect(projectToSchema(A2A_0_3.document, def, { id: 't', pushNotificationConfigId: 'c', extra: 1 })).toEqual({
      id: 't',
      pushNotificationConfigId: 'c',
    });
    expect(projectToSchema(A2A_0_3.document, def, { id: 't', extra: 1 })).toEqual({ id: 't' });
  });

  it('keeps free-form metadata whole', () => {
    const request = {
      message: {
        messageId: 'm',
        role: 'ROLE_USER',
        parts: [{ text: 'x', kind: 'text' }],
        metadata: { kind: 'kept', nested: { any: [1] } },
      },
      extra: true,
    };
    expect(projectToSchema(A2A_1_0.document, 'SendMessageRequest', request)).toEqual({
      message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'x' }], metadata: { kind: 'kept', nested: { any: [1] } } },
    });
  });

  it('keeps a map entry keyed "__proto__" as an entry, not as the copy\'s prototype', () => {
    // JSON.parse makes "__proto__" an own member like any other key; a map copies every key.
    const card = JSON.parse(`{
      "name": "n", "description": "d", "version": "1",
      "supportedInterfaces": [{ "url": "http://127.0.0.1/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0" }],
      "capabilities": {}, "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"], "skills": [],
      "securitySchemes": { "__proto__": { "openIdConnectSecurityScheme": { "openIdConnectUrl": "http://a.example" } } }
    }`) as Record<string, unknown>;
    const projected = projectToSchema(A2A_1_0.document, 'AgentCard', card) as { securitySchemes: object };
    expect(Object.getPrototypeOf(projected.securitySchemes)).toBe(Object.prototype);
    expect(Object.keys(projected.securitySchemes)).toEqual(['__proto__']);
    expect(JSON.stringify(projected)).toBe(JSON.stringify(card));
  });
});
