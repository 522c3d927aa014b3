import { canonicalJson } from '../../../src/support/canonical-json.js';

/** Whether two JSON values are equal regardless of member order (undefined equals only undefined). */
export function sameJson(left: unknown, right: unknown): boolean {
  if (left === undefined || right === undefined) return left === right;
  return canonicalJson(left) === canonicalJson(right);
}
