import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REQUIREMENT_BY_ID, REQUIREMENTS, type RequirementId } from '../../generated/conformance/requirements.js';
import type { Check } from '../../conformance/core/check.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { runChecks } from './harness.js';

/*
 * Verdict levels follow the spec text: a violated MUST is a FAIL, a violated SHOULD or MAY a
 * WARN, and a MUST warns only for the observations its catalog entry names in `warns`.
 */

let hub: TestHub;
beforeAll(async () => {
  hub = await startTestHub();
});
afterAll(() => hub.dispose());

/** A check that records one verdict, as given, on one requirement. */
function recording(requirement: RequirementId, how: 'fail' | 'warn'): Check {
  return {
    id: `record-${how}`,
    title: `records a ${how}`,
    requirements: [requirement],
    once: true,
    run(context) {
      context[how](requirement, { message: `a ${how} planted by the test` });
      return Promise.resolve();
    },
  };
}

async function verdictOf(requirement: RequirementId, how: 'fail' | 'warn'): Promise<{ verdict: string; message: string }> {
  const report = await runChecks(hub.url, [recording(requirement, how)], { only: [requirement] });
  const result = report.results.find((entry) => entry.id === requirement);
  return { verdict: result?.verdict ?? 'missing', message: result?.findings[0]?.message ?? '' };
}

/** Every `.warn('ID'` call with a literal requirement id in conformance/. */
function literalWarns(): { file: string; id: string }[] {
  const found: { file: string; id: string }[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.ts'))
        for (const match of readFileSync(path, 'utf8').matchAll(/\.warn\(\s*'([A-Z][A-Z0-9-]*-\d{3})'/g))
          found.push({ file: path, id: match[1] as string });
    }
  };
  walk(join(REPO_ROOT, 'conformance'));
  return found;
}

describe('verdict levels', () => {
  it('the catalog makes a violation of every MUST a FAIL and of every SHOULD or MAY a WARN', () => {
    const wrong = REQUIREMENTS.filter((entry) => entry.violation !== (entry.level === 'MUST' ? 'FAIL' : 'WARN')).map((entry) => entry.id);
    expect(wrong).toEqual([]);
  });

  it('no check warns on a MUST unless the catalog names what may warn (warns)', () => {
    const warns = literalWarns();
    expect(warns.length).toBeGreaterThan(10);
    const unlisted = warns.filter(
      ({ id }) => REQUIREMENT_BY_ID.get(id)?.level === 'MUST' && REQUIREMENT_BY_ID.get(id)?.warns === undefined,
    );
    expect(unlisted).toEqual([]);
  });

  it('a violation of a MUST stays a FAIL', async () => {
    expect((await verdictOf('GET-001', 'fail')).verdict).toBe('FAIL');
  });

  it('a violation of a SHOULD is a WARN saying so', async () => {
    expect(REQUIREMENT_BY_ID.get('CARD-008')?.level).toBe('SHOULD');
    expect(await verdictOf('CARD-008', 'fail')).toEqual({
      verdict: 'WARN',
      message: 'recommended behaviour not met: a fail planted by the test',
    });
  });

  it('a violation of a MAY is a WARN saying so', async () => {
    expect(REQUIREMENT_BY_ID.get('HUB-001')?.level).toBe('MAY');
    expect(await verdictOf('HUB-001', 'fail')).toEqual({
      verdict: 'WARN',
      message: 'optional behaviour not offered: a fail planted by the test',
    });
  });

  it('a WARN on a MUST the catalog allows no warning for is an ERROR of the suite, never a softened verdict', async () => {
    expect(REQUIREMENT_BY_ID.get('GET-001')?.warns).toBeUndefined();
    const { verdict, message } = await verdictOf('GET-001', 'warn');
    expect(verdict).toBe('ERROR');
    expect(message).toMatch(/warned on GET-001, a MUST whose catalog entry allows no warning/);
  });

  it('a WARN on a MUST whose catalog entry lists warns is kept', async () => {
    expect(REQUIREMENT_BY_ID.get('CARD-002')?.warns).toBe('an empty skills array');
    expect((await verdictOf('CARD-002', 'warn')).verdict).toBe('WARN');
  });
});
