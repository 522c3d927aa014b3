import { isRecord } from '../../../src/support/records.js';
import type { CheckContext } from '../../core/check.js';
import type { Exchange } from '../../core/exchange.js';
import { FREE_FORM, namingProblems } from './card-problems.js';

/*
 * What the values an agent sends look like, beyond their schema: ProtoJSON names (CARD-006)
 * and RFC 3339 timestamps (DATA-002).
 */

export function reportNaming(context: CheckContext, value: unknown, what: string, exchange: Pick<Exchange, 'request'> | undefined): void {
  const problems = namingProblems(value);
  if (problems.length === 0) {
    context.pass('CARD-006', `${what}: lowerCamelCase names and enum name strings`);
    return;
  }
  for (const problem of problems.slice(0, 5)) {
    context.fail('CARD-006', {
      message: `${what} does not use ProtoJSON names`,
      expected: 'lowerCamelCase member names and enum values as their proto name strings',
      observed: problem.problem,
      path: problem.path,
      ...(exchange ? { exchange } : {}),
    });
  }
}

/** Every `timestamp` in a response: RFC 3339 UTC with Z; milliseconds SHOULD be used (DATA-002). */
export function checkTimestamps(context: CheckContext, value: unknown, exchange: Pick<Exchange, 'request'>, path = ''): number {
  if (Array.isArray(value))
    return value.reduce<number>((count, item, index) => count + checkTimestamps(context, item, exchange, `${path}[${index}]`), 0);
  if (!isRecord(value)) return 0;
  let count = 0;
  for (const [key, member] of Object.entries(value)) {
    const at = path === '' ? key : `${path}.${key}`;
    if (FREE_FORM.has(key)) continue;
    if (key === 'timestamp' || key.endsWith('Timestamp')) {
      count += 1;
      const match =
        typeof member === 'string' ? /^\d{4}-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:\d{2}|z)$/.exec(member) : null;
      const valid =
        match !== null &&
        match[7] === 'Z' &&
        !Number.isNaN(Date.parse(match[0])) &&
        Number(match[1]) >= 1 &&
        Number(match[1]) <= 12 &&
        Number(match[3]) <= 23;
      if (match === null || !valid) {
        context.fail('DATA-002', {
          message: 'a timestamp is not RFC 3339 UTC ending in Z',
          expected: 'e.g. 2025-10-28T10:30:00.000Z',
          observed: JSON.stringify(member),
          path: at,
          exchange,
        });
      } else if ((match[6] ?? '').length !== 3) {
        context.warn('DATA-002', {
          message: 'a timestamp does not use millisecond precision',
          expected: 'three fractional digits, e.g. 2025-10-28T10:30:00.000Z',
          observed: String(member),
          path: at,
          exchange,
        });
      } else {
        context.pass('DATA-002', `${at} is ${String(member)}`);
      }
      continue;
    }
    count += checkTimestamps(context, member, exchange, at);
  }
  return count;
}
