import { describe, expect, it } from 'vitest';
import { A2A_1_0 } from '../../src/protocol/a2a-schema.js';
import { schemaAt, valueAt } from '../../src/protocol/json-schema.js';

describe('walking a JSON pointer', () => {
  // Pointers come from validator errors about wire data, so any key can be a segment.
  it('treats a map key named like an Object.prototype member as an ordinary key', () => {
    const schemeSchema = schemaAt(A2A_1_0.document, 'AgentCard', '/securitySchemes/ok');
    expect(schemeSchema).toBeDefined();
    for (const key of ['__proto__', 'constructor', 'toString']) {
      expect(schemaAt(A2A_1_0.document, 'AgentCard', `/securitySchemes/${key}`)).toBe(schemeSchema);
    }
  });

  it('finds no member that the schema does not declare, even one Object.prototype has', () => {
    expect(schemaAt(A2A_1_0.document, 'AgentCard', '/name')).toBeDefined();
    expect(schemaAt(A2A_1_0.document, 'AgentCard', '/constructor')).toBeUndefined();
    expect(schemaAt(A2A_1_0.document, 'AgentCard', '/__proto__')).toBeUndefined();
  });

  it('reads own members and array items only', () => {
    const data = JSON.parse('{"a":[{"b":1}],"__proto__":{"c":2}}') as unknown;
    expect(valueAt(data, '/a/0/b')).toBe(1);
    expect(valueAt(data, '/__proto__/c')).toBe(2);
    expect(valueAt({}, '/constructor')).toBeUndefined();
    expect(valueAt({}, '/__proto__')).toBeUndefined();
  });
});
