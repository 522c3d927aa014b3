import { describe, expect, it } from 'vitest';
import { setOwn } from '../../src/support/own-property.js';

describe('setOwn', () => {
  it('stores "__proto__" as an own entry and leaves the prototype alone', () => {
    const target: Record<string, unknown> = {};
    setOwn(target, '__proto__', { polluted: true });
    expect(Object.getPrototypeOf(target)).toBe(Object.prototype);
    expect(Object.keys(target)).toEqual(['__proto__']);
    expect(JSON.stringify(target)).toBe('{"__proto__":{"polluted":true}}');
    expect((target as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it('assigns other keys, replacing an earlier value and keeping insertion order', () => {
    const target: Record<string, unknown> = {};
    setOwn(target, 'b', 1);
    setOwn(target, '__proto__', 2);
    setOwn(target, 'a', 3);
    setOwn(target, 'b', 4);
    setOwn(target, '__proto__', 5);
    expect(JSON.stringify(target)).toBe('{"b":4,"__proto__":5,"a":3}');
  });
});
