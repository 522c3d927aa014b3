import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ConformanceReport, Finding, RequirementResult, Verdict } from '../../generated/conformance/types.js';
import { validateConformanceReport } from '../../generated/conformance/validators.js';
import { BaselineError, TODO_REASON, baselineFromReport, loadBaseline, parseBaseline } from '../../conformance/report/baseline.js';
import { areaOf, counterexampleJson, groupByArea, summaryLine, visibleText } from '../../conformance/report/common.js';
import { renderConsole } from '../../conformance/report/console.js';
import { renderHtml } from '../../conformance/report/html.js';
import { renderJson } from '../../conformance/report/json.js';
import { renderJUnit } from '../../conformance/report/junit.js';

const HOSTILE = '<script>alert(1)</script> ]]> & \u0000 \u001b[2J';
const FAIL_CURL = `curl -sS -N -X POST 'https://agent.example/a2a' -H 'content-type: application/json' --data-raw '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{}}'`;
const TARGET_URL = 'https://agent.example/a2a?q="x"&y=<b>';

function sampleReport(): ConformanceReport {
  const results: RequirementResult[] = [
    {
      id: 'CARD-001',
      protocol: '1.0',
      section: '8.2',
      level: 'MUST',
      text: 'The agent card is served at /.well-known/agent-card.json',
      verdict: 'PASS',
      evidence: 3,
      findings: [{ verdict: 'PASS', check: 'card-fetch', message: 'as required' }],
    },
    {
      id: 'CARD-002',
      protocol: '1.0',
      section: '8.3',
      level: 'SHOULD',
      text: 'The card declares a description',
      verdict: 'WARN',
      evidence: 3,
      findings: [
        {
          verdict: 'WARN',
          check: 'card-shape',
          message: 'description is empty',
          expected: 'a non-empty description',
          observed: '""',
          path: 'description',
        },
      ],
    },
    {
      id: 'GET-001',
      protocol: '1.0',
      section: '9.3',
      level: 'MUST',
      text: 'GetTask returns the task',
      verdict: 'PASS',
      evidence: 3,
      findings: [{ verdict: 'PASS', check: 'get-task', message: 'as required' }],
    },
    {
      id: 'SEND-030',
      protocol: '1.0',
      section: '9.1',
      level: 'MUST',
      text: 'SendMessage rejects an empty parts array',
      verdict: 'FAIL',
      evidence: 3,
      baselined: 'known bug, tracked in issue 12',
      findings: [
        {
          verdict: 'FAIL',
          check: 'send-invalid',
          message: 'expected error -32602',
          expected: 'error -32602',
          observed: 'HTTP 200',
          curl: `${FAIL_CURL} # baselined`,
        },
      ],
    },
    {
      id: 'SEND-031',
      protocol: '1.0',
      section: '9.1',
      level: 'MUST',
      text: 'SendMessage answers a Task or a Message',
      verdict: 'FAIL',
      evidence: 3,
      findings: [
        { verdict: 'PASS', check: 'send-basic', message: 'as required' },
        {
          verdict: 'FAIL',
          check: 'send-basic',
          message: `the result is neither a Task nor a Message: ${HOSTILE}`,
          expected: 'a Task or a Message',
          observed: `{"result":"${HOSTILE}"}\nsecond line`,
          path: 'result.status',
          counterexample: { text: HOSTILE, big: 'x'.repeat(2000) },
          seed: 1234,
          curl: FAIL_CURL,
        },
      ],
    },
    {
      id: 'JSONRPC-ENV-003',
      protocol: '1.0',
      section: '11.2',
      level: 'MUST',
      text: 'A notification is never answered',
      verdict: 'ERROR',
      evidence: 3,
      findings: [{ verdict: 'ERROR', check: 'envelope', message: 'the check itself failed: socket hang up' }],
    },
    {
      id: 'SSE-001',
      protocol: '1.0',
      section: '9.4',
      level: 'SHOULD',
      text: 'Streams carry a heartbeat',
      verdict: 'SKIP',
      evidence: 0,
      findings: [
        {
          verdict: 'SKIP',
          check: 'sse',
          message: 'the card does not declare capabilities.streaming',
          skipReason: 'capability-not-declared',
        },
      ],
    },
    {
      id: 'PUSH-002',
      protocol: '1.0',
      section: '9.7',
      level: 'MAY',
      text: 'Push configs can be listed',
      verdict: 'SKIP',
      evidence: 0,
      findings: [{ verdict: 'SKIP', check: 'runner', message: 'not selected (--level, --only or --skip)', skipReason: 'not-selected' }],
    },
  ];
  return {
    formatVersion: '1',
    tool: { name: 'a2a-hub', version: '0.1.0' },
    specVersion: '1.0',
    startedAt: '2025-06-01T12:00:00.000Z',
    durationMs: 8123,
    target: {
      url: TARGET_URL,
      cardUrl: 'https://agent.example/.well-known/agent-card.json',
      endpoint: 'https://agent.example/a2a',
      binding: 'JSONRPC',
      protocolVersions: ['1.0'],
      agentName: 'Evil <img src=x onerror=alert(1)> agent',
      assumedCard: false,
      mode: 'black-box',
    },
    options: { level: 'should', runs: 100, seed: 1234, timeoutMs: 10_000, skip: ['PUSH-002'] },
    summary: {
      PASS: 2,
      FAIL: 2,
      WARN: 1,
      SKIP: 2,
      ERROR: 1,
      mustFailures: 1,
      requests: 412,
      deniedRequests: 3,
      baselineStale: ['GET-001', 'CANCEL-009'],
    },
    warnings: ['no agent card was found: a minimal card <without> capabilities was assumed'],
    results,
  };
}

const ALL_VERDICTS: readonly Verdict[] = ['PASS', 'FAIL', 'WARN', 'SKIP', 'ERROR'];

describe('the sample report', () => {
  it('is valid against the published schema and covers every verdict', () => {
    const report = sampleReport();
    expect(validateConformanceReport(report), JSON.stringify(validateConformanceReport.errors)).toBe(true);
    for (const verdict of ALL_VERDICTS) expect(report.results.some((result) => result.verdict === verdict)).toBe(true);
  });

  it('needs a skip reason code on every SKIP finding, from the vocabulary, and on no other', () => {
    const withFinding = (id: string, change: (finding: Finding) => Finding): ConformanceReport => {
      const report = sampleReport();
      return {
        ...report,
        results: report.results.map((result) => (result.id === id ? { ...result, findings: result.findings.map(change) } : result)),
      };
    };
    const uncoded = withFinding('SSE-001', ({ skipReason: _dropped, ...finding }) => finding);
    expect(validateConformanceReport(uncoded)).toBe(false);
    expect(
      validateConformanceReport(withFinding('SSE-001', (finding) => ({ ...finding, skipReason: 'because' as Finding['skipReason'] }))),
    ).toBe(false);
    expect(validateConformanceReport(withFinding('CARD-001', (finding) => ({ ...finding, skipReason: 'feature-absent' })))).toBe(false);
  });
});

describe('areas and shared helpers', () => {
  it('takes the longest known prefix as the area', () => {
    expect(areaOf('JSONRPC-ENV-003')).toBe('JSONRPC-ENV');
    expect(areaOf('REST-ENV-010')).toBe('REST-ENV');
    expect(areaOf('SEND-030')).toBe('SEND');
    expect(areaOf('XCARD-001')).toBe('XCARD');
    expect(areaOf('NEWTHING-001')).toBe('NEWTHING');
  });

  it('groups results by area in catalog order', () => {
    expect(groupByArea(sampleReport().results).map((group) => group.area)).toEqual(['CARD', 'SEND', 'SSE', 'GET', 'PUSH', 'JSONRPC-ENV']);
  });

  it('makes control characters and lone surrogates visible', () => {
    expect(visibleText('a\u0000b\u001bc\r\nd\te\uD800')).toBe('a\\u0000b\\u001bc\nd\te\\ud800');
  });

  it('renders counterexamples JSON has no form for', () => {
    expect(counterexampleJson({ n: 12n, u: undefined })).toBe('{"n":"12n","u":"undefined"}');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(counterexampleJson(cyclic)).toBe('{"self":"[Circular]"}');
    expect(counterexampleJson('x'.repeat(600), { max: 500 })).toMatch(/… \(\d+ more characters\)$/);
  });

  it('writes the closing line in the documented form', () => {
    const report = sampleReport();
    const clean: ConformanceReport = {
      ...report,
      results: report.results.filter((result) => result.baselined === undefined),
      summary: { PASS: 95, FAIL: 0, WARN: 3, SKIP: 21, ERROR: 0, mustFailures: 0, requests: 412, deniedRequests: 0, baselineStale: [] },
    };
    expect(summaryLine(clean)).toBe('MUST failures: 0 · 95 PASS, 0 FAIL, 3 WARN, 21 SKIP, 0 ERROR · 412 requests in 8.1 s');
    expect(summaryLine(report)).toBe(
      'MUST failures: 1 (+1 baselined) · 2 PASS, 2 FAIL, 1 WARN, 2 SKIP, 1 ERROR · 412 requests (3 refused) in 8.1 s',
    );
  });
});

describe('renderJson', () => {
  it('emits pretty JSON that validates and round-trips', () => {
    const report = sampleReport();
    const text = renderJson(report);
    expect(text.endsWith('}\n')).toBe(true);
    expect(text).toContain('\n  "formatVersion": "1",\n');
    const parsed: unknown = JSON.parse(text);
    expect(validateConformanceReport(parsed)).toBe(true);
    expect(parsed).toEqual(report);
  });

  it('throws rather than emit a report that breaks the schema', () => {
    const broken = { ...sampleReport(), durationMs: -1 };
    expect(() => renderJson(broken)).toThrow(/does not match spec\/conformance\/report\.schema\.json: \/durationMs/);
    const badVerdict = sampleReport();
    (badVerdict.results[0] as { verdict: string }).verdict = 'MAYBE';
    expect(() => renderJson(badVerdict)).toThrow(/results\/0\/verdict/);
  });

  it('keeps a bigint counterexample as a string instead of crashing', () => {
    const report = sampleReport();
    const finding = report.results[4]?.findings[1];
    if (finding === undefined) throw new Error('fixture changed');
    finding.counterexample = { n: 10n };
    expect(JSON.parse(renderJson(report))).toMatchObject({
      results: expect.arrayContaining([expect.objectContaining({ id: 'SEND-031' })]) as unknown,
    });
    expect(renderJson(report)).toContain('"n": "10n"');
  });
});

interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  text: string;
}

/** A minimal XML parser for well-formedness: tags must balance, text and attributes may hold only valid references, no invalid characters. */
function parseXml(xml: string): XmlElement {
  // eslint-disable-next-line no-control-regex
  expect(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/.test(xml)).toBe(false);
  let rest = xml.replace(/^<\?xml [^?]*\?>\s*/, '');
  const root: XmlElement = { name: '#document', attributes: {}, children: [], text: '' };
  const stack: XmlElement[] = [root];
  const checkReferences = (text: string): string => {
    expect(text).not.toMatch(/&(?!(amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);)/);
    return text.replace(
      /&(amp|lt|gt|quot|apos|#\d+);/g,
      (_all, name: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" })[name] ?? String.fromCodePoint(Number(name.slice(1))),
    );
  };
  while (rest.length > 0) {
    const top = stack[stack.length - 1];
    if (top === undefined) throw new Error('unbalanced');
    const lt = rest.indexOf('<');
    const text = lt === -1 ? rest : rest.slice(0, lt);
    expect(text).not.toContain('>');
    top.text += checkReferences(text);
    if (lt === -1) break;
    rest = rest.slice(lt);
    const comment = /^<!--([\s\S]*?)-->/.exec(rest);
    if (comment) {
      expect(comment[1]).not.toContain('--');
      rest = rest.slice(comment[0].length);
      continue;
    }
    const close = /^<\/([A-Za-z_][\w.-]*)\s*>/.exec(rest);
    if (close) {
      expect(close[1]).toBe(top.name);
      stack.pop();
      rest = rest.slice(close[0].length);
      continue;
    }
    const open = /^<([A-Za-z_][\w.-]*)((?:\s+[A-Za-z_][\w.-]*="[^"<]*")*)\s*(\/?)>/.exec(rest);
    if (!open) throw new Error(`not well-formed at: ${rest.slice(0, 80)}`);
    const attributes: Record<string, string> = {};
    for (const match of (open[2] ?? '').matchAll(/([A-Za-z_][\w.-]*)="([^"]*)"/g)) {
      const [, name = '', value = ''] = match;
      expect(attributes[name], `duplicate attribute ${name}`).toBeUndefined();
      attributes[name] = checkReferences(value);
    }
    const element: XmlElement = { name: open[1] ?? '', attributes, children: [], text: '' };
    top.children.push(element);
    if (open[3] !== '/') stack.push(element);
    rest = rest.slice(open[0].length);
  }
  expect(stack).toHaveLength(1);
  expect(root.children).toHaveLength(1);
  expect(root.text.trim()).toBe('');
  const [document] = root.children;
  if (document === undefined) throw new Error('no root element');
  return document;
}

describe('renderJUnit', () => {
  const report = sampleReport();
  const xml = renderJUnit(report);
  const document = parseXml(xml);

  it('is well-formed XML with one testsuite per area and one testcase per requirement', () => {
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites')).toBe(true);
    expect(document.name).toBe('testsuites');
    const suites = document.children.filter((child) => child.name === 'testsuite');
    expect(suites.map((suite) => suite.attributes.name)).toEqual(groupByArea(report.results).map((group) => group.area));
    const cases = suites.flatMap((suite) => suite.children.filter((child) => child.name === 'testcase'));
    const grouped = groupByArea(report.results).flatMap((group) => group.results.map((result) => result.id));
    expect(cases.map((testcase) => testcase.attributes.name?.split(' ')[0])).toEqual(grouped);
    expect([...grouped].sort()).toEqual(report.results.map((result) => result.id).sort());
    expect(document.attributes.tests).toBe(String(report.results.length));
  });

  it('has per-suite counts that match the testcases', () => {
    let failures = 0;
    for (const suite of document.children) {
      const cases = suite.children.filter((child) => child.name === 'testcase');
      const count = (name: string): number => cases.filter((testcase) => testcase.children.some((child) => child.name === name)).length;
      expect(suite.attributes.tests).toBe(String(cases.length));
      expect(suite.attributes.failures).toBe(String(count('failure')));
      expect(suite.attributes.errors).toBe(String(count('error')));
      expect(suite.attributes.skipped).toBe(String(count('skipped')));
      for (const testcase of cases) expect(testcase.attributes.classname).toBe(suite.attributes.name);
      failures += count('failure');
    }
    expect(document.attributes.failures).toBe(String(failures));
  });

  it('maps every verdict', () => {
    const byId = new Map(
      document.children
        .flatMap((suite) => suite.children.filter((child) => child.name === 'testcase'))
        .map((testcase) => [testcase.attributes.name?.split(' ')[0] ?? '', testcase]),
    );
    // A PASS holds only its evidence count; every testcase carries one.
    expect(byId.get('CARD-001')?.children.map((child) => child.name)).toEqual(['properties']);
    const evidence = (id: string) =>
      byId
        .get(id)
        ?.children.find((child) => child.name === 'properties')
        ?.children.find((child) => child.attributes.name === 'evidence')?.attributes.value;
    expect(evidence('CARD-001')).toBe('3');
    expect(evidence('SSE-001')).toBe('0');
    expect(byId.get('CARD-001')?.attributes.name).toBe('CARD-001 The agent card is served at /.well-known/agent-card.json');
    const failure = byId.get('SEND-031')?.children.find((child) => child.name === 'failure');
    expect(failure?.attributes.message).toBe(
      'the result is neither a Task nor a Message: <script>alert(1)</script> ]]> & \\u0000 \\u001b[2J',
    );
    expect(failure?.text).toContain(FAIL_CURL);
    expect(failure?.text).toContain('seed: 1234');
    expect(failure?.text).toContain('path: result.status');
    const error = byId.get('JSONRPC-ENV-003')?.children.find((child) => child.name === 'error');
    expect(error?.attributes.message).toBe('the check itself failed: socket hang up');
    const skipped = byId.get('SSE-001')?.children.find((child) => child.name === 'skipped');
    expect(skipped?.attributes.message).toBe('the card does not declare capabilities.streaming');
    expect(skipped?.attributes.type).toBe('capability-not-declared');
    const warn = byId.get('CARD-002');
    expect(warn?.children.map((child) => child.name)).toEqual(['properties', 'system-out']);
    expect(warn?.children[1]?.text).toContain('description is empty');
    const baselined = byId.get('SEND-030');
    expect(baselined?.children.find((child) => child.name === 'skipped')?.attributes.message).toBe(
      'expected failure (baseline): known bug, tracked in issue 12',
    );
    expect(baselined?.children.some((child) => child.name === 'failure')).toBe(false);
  });

  it('escapes hostile text', () => {
    expect(xml).not.toContain('<script>');
    expect(xml).not.toContain('\u0000');
    expect(xml).not.toContain('\u001b');
    expect(xml).not.toMatch(/\]\]>/);
    expect(xml).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });
});

describe('renderHtml', () => {
  const report = sampleReport();
  const html = renderHtml(report);

  it('is one self-contained page', () => {
    expect(html.startsWith('<!DOCTYPE html>')).toBe(true);
    expect(html).toContain('</html>');
    for (const match of html.matchAll(/\s(src|href|action|srcset|poster)\s*=\s*"([^"]*)"/gi)) {
      expect(match[1]?.toLowerCase(), `external reference ${match[0]}`).toBe('href');
      expect(match[2]).toMatch(/^#/);
    }
    expect(html).not.toMatch(/url\(|@import|<link|<iframe|<object|<embed/i);
    expect(html).toContain("default-src 'none'");
  });

  it('mentions URLs only as escaped text, never as links', () => {
    const urls = [...html.matchAll(/https?:\/\/[^\s<"']*/g)].map((match) => match[0]);
    expect(urls.length).toBeGreaterThan(0);
    for (const url of urls) expect(url.startsWith('https://agent.example/')).toBe(true);
    expect(html).toContain('<code>https://agent.example/a2a?q=&quot;x&quot;&amp;y=&lt;b&gt;</code>');
    expect(html).not.toMatch(/<a [^>]*href="https?:/);
  });

  it('lists every requirement with its verdict and findings', () => {
    for (const result of report.results) {
      expect(html).toContain(`<code>${result.id}</code>`);
      expect(html).toContain(`data-verdict="${result.verdict}" id="req-${result.id}"`);
    }
    for (const verdict of ALL_VERDICTS) expect(html).toContain(`id="show-${verdict}"`);
    expect(html).toContain('known bug, tracked in issue 12');
    expect(html).toContain('GET-001');
    expect(html).toContain('CANCEL-009');
    expect(html).toMatch(/<pre class="curl"[^>]*>curl -sS -N -X POST &#39;https:\/\/agent\.example\/a2a&#39;/);
    expect(html).toContain('the card does not declare capabilities.streaming <code>capability-not-declared</code>');
    expect(html).toContain('no agent card was found: a minimal card &lt;without&gt; capabilities was assumed');
  });

  it('escapes hostile text', () => {
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toContain('<img');
    expect(html).not.toContain('\u0000');
    expect(html).not.toContain('\u001b');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt; ]]&gt; &amp; \\u0000 \\u001b[2J');
    expect(html).toContain('Evil &lt;img src=x onerror=alert(1)&gt; agent');
  });
});

describe('renderConsole', () => {
  const report = sampleReport();
  const plain = renderConsole(report, { color: false });

  it('has no ANSI escapes without colour, even from agent text', () => {
    expect(plain).not.toContain('\u001b');
    expect(plain).not.toContain('\u0000');
    expect(plain).toContain('\\u001b[2J');
  });

  it('groups counts by area and by level', () => {
    expect(plain).toMatch(/By area\s+PASS\s+FAIL\s+WARN\s+SKIP\s+ERROR/);
    expect(plain).toMatch(/\n {2}CARD\s+1\s+0\s+1\s+0\s+0\n/);
    expect(plain).toMatch(/\n {2}SEND\s+0\s+2\s+0\s+0\s+0\n/);
    expect(plain).toMatch(/\n {2}JSONRPC-ENV\s+0\s+0\s+0\s+0\s+1\n/);
    expect(plain).toMatch(/\n {2}MUST\s+2\s+2\s+0\s+0\s+1\n/);
    expect(plain).toMatch(/\n {2}MAY\s+0\s+0\s+0\s+1\s+0\n/);
  });

  it('details failures, errors, warnings, the baseline and the run', () => {
    expect(plain).toContain('Failures (1)');
    expect(plain).toMatch(/FAIL\s+SEND-031\s+MUST\s+SendMessage answers a Task or a Message/);
    expect(plain).toContain(FAIL_CURL);
    expect(plain).toMatch(/seed\s+1234/);
    expect(plain).toMatch(/path\s+result\.status/);
    expect(plain).toMatch(/expected\s+a Task or a Message/);
    expect(plain).toMatch(/counterexample\s+\{"text":"<script>alert\(1\)<\/script> ]]> & \\u0000/);
    expect(plain).toMatch(/\(\d+ more characters\)/);
    expect(plain).toContain('second line');
    expect(plain).toMatch(/Errors[^\n]*\(1\)\n\s+ERROR\s+JSONRPC-ENV-003/);
    expect(plain).toContain('socket hang up');
    expect(plain).toMatch(/Baselined failures[^\n]*\(1\)\n\s+FAIL\s+SEND-030/);
    expect(plain).toContain('baselined: known bug, tracked in issue 12');
    expect(plain).toMatch(/Warnings \(1\)\n\s+WARN\s+CARD-002/);
    expect(plain).toMatch(/Stale baseline entries \(2\)[^\n]*\n\s+GET-001\s+now PASS\n\s+CANCEL-009\s+not a requirement of this catalog/);
    expect(plain).toContain('no agent card was found');
    expect(plain).toContain('(and 1 passing or skipped observation)');
    expect(plain).not.toContain('Passed (');
  });

  it('ends with the summary line', () => {
    expect(plain.trimEnd().split('\n').at(-1)).toBe(summaryLine(report));
  });

  it('lists passes and skips with their reasons when verbose', () => {
    const verbose = renderConsole(report, { color: false, verbose: true });
    expect(verbose).toMatch(/Passed \(2\)\n\s+PASS\s+CARD-001[^\n]*\n\s+as required/);
    expect(verbose).toMatch(
      /Skipped \(2\)\n\s+SKIP\s+SSE-001[^\n]*\n\s+\[capability-not-declared\] the card does not declare capabilities\.streaming/,
    );
    expect(verbose).toContain('[not-selected] not selected (--level, --only or --skip)');
  });

  it('uses ANSI colours when asked', () => {
    const colored = renderConsole(report, { color: true });
    expect(colored).toContain('\u001b[');
    expect(colored).toContain('\u001b[31;1mFAIL');
    // The agent's own escape sequences stay inert in colour mode too.
    expect(colored).not.toContain('\u001b[2J');
    // eslint-disable-next-line no-control-regex
    expect(colored.replace(/\u001b\[[\d;]*m/g, '')).toBe(plain);
  });
});

describe('baseline files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-baseline-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, text: string): string => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };

  it('loads id → reason', () => {
    const path = file(
      'ok.json',
      JSON.stringify({
        expectedFailures: [
          { id: 'SEND-030', reason: 'known bug' },
          { id: 'CARD-002', reason: 'later' },
        ],
      }),
    );
    expect(loadBaseline(path)).toEqual(
      new Map([
        ['SEND-030', 'known bug'],
        ['CARD-002', 'later'],
      ]),
    );
    expect(loadBaseline(file('empty.json', '{"expectedFailures": []}')).size).toBe(0);
  });

  it('says clearly what is wrong', () => {
    const missing = join(dir, 'nope.json');
    expect(() => loadBaseline(missing)).toThrow(BaselineError);
    expect(() => loadBaseline(missing)).toThrow(`baseline ${missing}: file not found`);
    mkdirSync(join(dir, 'a-dir'));
    expect(() => loadBaseline(join(dir, 'a-dir'))).toThrow(/is a directory/);
    expect(() => loadBaseline(file('bad.json', '{ "expectedFailures": [ }'))).toThrow(
      /bad\.json: is not valid JSON \(.+\); expected \{ "expectedFailures"/,
    );
    expect(() => loadBaseline(file('array.json', '[]'))).toThrow(/must be a JSON object/);
    expect(() => loadBaseline(file('none.json', '{}'))).toThrow(/"expectedFailures" must be an array, and it is missing/);
    expect(() => loadBaseline(file('typo.json', '{"expectedFailure": []}'))).toThrow(/unknown member "expectedFailure"/);
    expect(() => loadBaseline(file('noreason.json', '{"expectedFailures": [{"id": "SEND-030"}]}'))).toThrow(
      /expectedFailures\[0\] \(SEND-030\) has no "reason": every expected failure needs one/,
    );
    expect(() => loadBaseline(file('blank.json', '{"expectedFailures": [{"id": "SEND-030", "reason": "  "}]}'))).toThrow(
      /invalid "reason"/,
    );
    expect(() => loadBaseline(file('noid.json', '{"expectedFailures": [{"reason": "x"}]}'))).toThrow(/expectedFailures\[0\] has no "id"/);
    expect(() => loadBaseline(file('extra.json', '{"expectedFailures": [{"id": "SEND-030", "reason": "x", "reasn": "y"}]}'))).toThrow(
      /unknown member "reasn"/,
    );
    const duplicate =
      '{"expectedFailures": [{"id": "SEND-030", "reason": "a"}, {"id": "CARD-001", "reason": "b"}, {"id": "SEND-030", "reason": "c"}]}';
    expect(() => loadBaseline(file('dup.json', duplicate))).toThrow(
      /duplicate id SEND-030: expectedFailures\[0\] and expectedFailures\[2\] both list it/,
    );
    expect(() => parseBaseline('{"expectedFailures": [{"id": "SEND-999", "reason": "x"}]}', 'b.json', { knownIds: ['SEND-030'] })).toThrow(
      /SEND-999\) is not a requirement id of the catalog/,
    );
  });

  it('writes a baseline from the current failures that loads again', () => {
    const text = baselineFromReport(sampleReport());
    expect(JSON.parse(text)).toEqual({
      expectedFailures: [
        { id: 'SEND-030', reason: 'known bug, tracked in issue 12' },
        { id: 'SEND-031', reason: TODO_REASON },
      ],
    });
    expect(parseBaseline(text, 'written')).toEqual(
      new Map([
        ['SEND-030', 'known bug, tracked in issue 12'],
        ['SEND-031', 'TODO: explain'],
      ]),
    );
  });
});

describe('a run over two bindings', () => {
  /** The sample report as a run over JSON-RPC and HTTP+JSON, with one failure found on HTTP+JSON only. */
  function twoBindings(): ConformanceReport {
    const report = sampleReport();
    const failing: RequirementResult = {
      id: 'REST-ENV-004',
      protocol: '1.0',
      section: '11.6',
      level: 'MUST',
      text: 'ErrorInfo in details',
      verdict: 'FAIL',
      evidence: 3,
      bindings: { 'HTTP+JSON': 'FAIL' },
      findings: [{ verdict: 'FAIL', check: 'rest-error-bodies', binding: 'HTTP+JSON', message: 'no ErrorInfo in details' }],
    };
    return {
      ...report,
      target: {
        ...report.target,
        interfaces: [
          { binding: 'JSONRPC', protocolVersion: '1.0', endpoint: 'https://agent.example/a2a' },
          { binding: 'HTTP+JSON', protocolVersion: '1.0', endpoint: 'https://agent.example/rest' },
        ],
      },
      results: [...report.results, failing],
    };
  }

  it('is valid against the schema, and every report names each endpoint and the binding of each finding', () => {
    const report = twoBindings();
    expect(validateConformanceReport(report), JSON.stringify(validateConformanceReport.errors)).toBe(true);
    const plain = renderConsole(report, { color: false, verbose: true });
    expect(plain).toContain('endpoint  https://agent.example/a2a · JSONRPC');
    expect(plain).toContain('endpoint  https://agent.example/rest · HTTP+JSON');
    expect(plain).toContain('[rest-error-bodies · HTTP+JSON] no ErrorInfo in details');
    expect(renderHtml(report)).toContain('rest-error-bodies · HTTP+JSON');
    expect(renderJUnit(report)).toContain('FAIL [rest-error-bodies · HTTP+JSON] no ErrorInfo in details');
    expect(renderJUnit(report)).toContain('name="endpoint.HTTP+JSON" value="https://agent.example/rest"');
  });
});
