import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envelopeChecks } from '../../conformance/checks/envelope.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { runChecks, verdicts } from './harness.js';

let hub: TestHub;
beforeAll(async () => {
  hub = await startTestHub();
});
afterAll(() => hub.dispose());

describe('JSON-RPC envelope checks against the hub', () => {
  it('pass on every envelope requirement', async () => {
    const report = await runChecks(hub.url, envelopeChecks);
    const ids = [...new Set(envelopeChecks.flatMap((check) => check.requirements))];
    expect(verdicts(report, ids)).toEqual(Object.fromEntries(ids.map((id) => [id, 'PASS'])));
  });
});
