import type { ConformanceReport, Finding, RequirementResult, Verdict } from '../../generated/conformance/types.js';
import {
  VERDICTS,
  countVerdicts,
  findingFields,
  formatDuration,
  groupByArea,
  notableFindings,
  explanationOf,
  skipReasonsOf,
  staleEntries,
  summaryLine,
  visibleText,
  checkLabel,
  interfaceLabel,
  interfacesOf,
  versionsOf,
  exchangesOf,
} from './common.js';

/** Counterexamples are shown pretty-printed up to this many characters; the JSON report keeps them whole. */
const COUNTEREXAMPLE_MAX = 20_000;

/**
 * Escapes text for HTML element content and quoted attribute values. Everything the agent sent
 * (observed bodies, messages, even its name and URL) passes through here: it is untrusted.
 */
export function escapeHtml(text: string): string {
  return visibleText(text)
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

const h = escapeHtml;

/** A fragment id derived from a requirement id or area: only letters, digits and `-` survive. */
function anchor(prefix: string, id: string): string {
  return `${prefix}-${id.replace(/[^A-Za-z0-9-]/g, '_')}`;
}

function badge(verdict: Verdict, extra = ''): string {
  return `<span class="badge v-${verdict}">${verdict}</span>${extra}`;
}

const STYLE = `
:root { color-scheme: light dark; --fg: #1f2328; --bg: #fff; --muted: #656d76; --line: #d0d7de; --panel: #f6f8fa;
  --pass: #1a7f37; --fail: #cf222e; --warn: #9a6700; --skip: #6e7781; --error: #8250df; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --bg: #0d1117; --muted: #8d96a0; --line: #30363d; --panel: #161b22;
  --pass: #3fb950; --fail: #f85149; --warn: #d29922; --skip: #8b949e; --error: #a371f7; } }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); margin: 0 auto; padding: 1.5rem; max-width: 1200px; }
h1 { font-size: 1.5rem; margin: 0 0 .25rem; } h2 { font-size: 1.15rem; margin: 1.5rem 0 .5rem; }
code, pre { font: 12.5px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
pre { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: .5rem .75rem; margin: .25rem 0; white-space: pre-wrap; overflow-wrap: anywhere; max-height: 30rem; overflow: auto; }
pre.curl { user-select: all; border-left: 3px solid var(--muted); }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; vertical-align: top; padding: .3rem .5rem; border-bottom: 1px solid var(--line); }
table.kv th { width: 11rem; color: var(--muted); font-weight: 500; }
table.counts td, table.counts th { text-align: right; } table.counts td:first-child, table.counts th:first-child { text-align: left; }
table.counts td.zero { color: var(--muted); opacity: .6; }
tr.area th { background: var(--panel); font-size: 1rem; padding-top: .6rem; }
tr.area th .tally { font-weight: 400; color: var(--muted); margin-left: .75rem; font-size: .85rem; }
.badge { display: inline-block; min-width: 3.6rem; text-align: center; font: 600 11.5px/1.6 ui-monospace, monospace; border-radius: 999px; padding: 0 .45rem; color: #fff; }
.v-PASS { background: var(--pass); } .v-FAIL { background: var(--fail); } .v-WARN { background: var(--warn); } .v-SKIP { background: var(--skip); } .v-ERROR { background: var(--error); }
.tag { display: inline-block; font-size: 11px; border: 1px solid var(--warn); color: var(--warn); border-radius: 4px; padding: 0 .3rem; margin-left: .35rem; }
.status { font-size: 1.1rem; font-weight: 600; margin: .25rem 0; } .status.ok { color: var(--pass); } .status.bad { color: var(--fail); } .status.meh { color: var(--warn); }
.muted { color: var(--muted); }
.box { border: 1px solid var(--warn); border-radius: 6px; padding: .5rem 1rem; margin: .75rem 0; }
.box h2 { margin-top: .25rem; }
details > summary { cursor: pointer; }
details .body { margin: .5rem 0 .25rem; }
.finding { border-left: 3px solid var(--line); padding: .25rem 0 .25rem .75rem; margin: .5rem 0; }
.finding.f-FAIL { border-color: var(--fail); } .finding.f-WARN { border-color: var(--warn); } .finding.f-ERROR { border-color: var(--error); } .finding.f-PASS { border-color: var(--pass); }
.finding dl { display: grid; grid-template-columns: 9rem 1fr; gap: .15rem .75rem; margin: .35rem 0 0; }
.finding dt { color: var(--muted); } .finding dd { margin: 0; min-width: 0; }
.filters { position: sticky; top: 0; background: var(--bg); padding: .5rem 0; border-bottom: 1px solid var(--line); z-index: 1; }
.filters label { margin-right: 1rem; cursor: pointer; }
${VERDICTS.map((verdict) => `body:has(#show-${verdict}:not(:checked)) tr[data-verdict="${verdict}"] { display: none; }`).join('\n')}
`;

function findingHtml(finding: Finding): string {
  const fields = findingFields(finding, { pretty: true, counterexampleMax: COUNTEREXAMPLE_MAX })
    .map(([label, value]) => {
      const shown =
        label === 'curl'
          ? `<pre class="curl" title="click to select the whole command">${h(value)}</pre>`
          : label === 'path' || label === 'seed'
            ? `<code>${h(value)}</code>`
            : label === 'counterexample' || value.includes('\n') || value.length > 120
              ? `<pre>${h(value)}</pre>`
              : h(value);
      return `<dt>${h(label)}</dt><dd>${shown}</dd>`;
    })
    .join('');
  return `<div class="finding f-${finding.verdict}">${badge(finding.verdict)} <code class="muted">${h(checkLabel(finding))}</code> ${h(finding.message)}${fields === '' ? '' : `<dl>${fields}</dl>`}</div>`;
}

function detailsHtml(result: RequirementResult): string {
  const notable = notableFindings(result);
  const rest = result.findings.filter((finding) => !notable.includes(finding));
  const open = (result.verdict === 'FAIL' && result.baselined === undefined) || result.verdict === 'ERROR';
  const codes = skipReasonsOf(result)
    .map((code) => ` <code>${h(code)}</code>`)
    .join('');
  const parts = [
    `<p class="muted">Section ${h(result.section)} · ${h(exchangesOf(result))}${result.verdict === 'PASS' || result.verdict === 'SKIP' ? ` · ${h(explanationOf(result))}${codes}` : ''}</p>`,
  ];
  if (result.baselined !== undefined) parts.push(`<p><strong>Baselined:</strong> ${h(result.baselined)}</p>`);
  parts.push(...notable.map(findingHtml));
  if (rest.length > 0) {
    parts.push(
      `<details><summary class="muted">${rest.length} passing or skipped observation${rest.length === 1 ? '' : 's'}</summary>${rest.map(findingHtml).join('')}</details>`,
    );
  }
  return `<details${open ? ' open' : ''}><summary>${h(result.text)}</summary><div class="body">${parts.join('')}</div></details>`;
}

function countsCells(counts: Record<Verdict, number>): string {
  return VERDICTS.map((verdict) => `<td${counts[verdict] === 0 ? ' class="zero"' : ''}>${counts[verdict]}</td>`).join('');
}

/**
 * The report as one self-contained HTML page: inline CSS, no scripts, no external resources
 * (a Content-Security-Policy forbids them, as a second line of defence behind the escaping).
 * Filtering by verdict works with CSS alone (`:has()`).
 */
export function renderHtml(report: ConformanceReport): string {
  const { target, options, summary } = report;
  const groups = groupByArea(report.results);
  const baselinedCount = report.results.filter((result) => result.verdict === 'FAIL' && result.baselined !== undefined).length;
  const plural = (count: number, noun: string): string => `${count} ${noun}${count === 1 ? '' : 's'}`;
  const otherFailures = summary.FAIL - baselinedCount - summary.mustFailures;
  const concerns = [
    ...(otherFailures > 0 ? [plural(otherFailures, 'other failure')] : []),
    ...(summary.ERROR > 0 ? [plural(summary.ERROR, 'suite error')] : []),
  ];
  const status =
    summary.mustFailures > 0
      ? `<p class="status bad">${plural(summary.mustFailures, 'MUST requirement')} failed</p>`
      : concerns.length > 0
        ? `<p class="status meh">No MUST failures, but ${concerns.join(' and ')}</p>`
        : '<p class="status ok">No MUST failures</p>';
  const kv = (label: string, value: string): string => `<tr><th>${h(label)}</th><td>${value}</td></tr>`;
  const optionText = [
    `level <code>${h(options.level)}</code>`,
    `${options.runs} runs`,
    `seed <code>${options.seed}</code>`,
    `timeout ${options.timeoutMs} ms`,
    ...(options.only?.length ? [`only <code>${h(options.only.join(', '))}</code>`] : []),
    ...(options.skip?.length ? [`skip <code>${h(options.skip.join(', '))}</code>`] : []),
  ].join(' · ');
  const meta = [
    kv('Target', `<code>${h(target.url)}</code>`),
    ...(target.agentName === undefined ? [] : [kv('Agent', h(target.agentName))]),
    kv(
      'Agent card',
      target.assumedCard
        ? 'none found: a minimal card was assumed'
        : target.cardUrl === undefined
          ? '<span class="muted">not fetched</span>'
          : `<code>${h(target.cardUrl)}</code>`,
    ),
    ...interfacesOf(target).map((entry) =>
      kv(
        'Endpoint',
        `<code>${h(entry.endpoint)}</code> · ${h(interfaceLabel(entry))} · ${h(target.mode)}${target.profile === undefined || target.profile === 'none' ? '' : ` (profile ${h(target.profile)})`}`,
      ),
    ),
    kv('Options', optionText),
    kv(
      'Protocol versions',
      versionsOf(target)
        .map((version) => `A2A ${h(version)}`)
        .join(' and '),
    ),
    kv(
      'Run',
      `${h(report.startedAt)} · ${h(formatDuration(report.durationMs))} · ${summary.requests} requests${summary.deniedRequests > 0 ? ` (${summary.deniedRequests} refused)` : ''}`,
    ),
    kv('Tool', `${h(report.tool.name)} ${h(report.tool.version)}`),
  ].join('\n');

  const warnings =
    report.warnings.length === 0
      ? ''
      : `<section class="box"><h2>Run warnings</h2><ul>${report.warnings.map((warning) => `<li>${h(warning)}</li>`).join('')}</ul></section>`;
  const stale = staleEntries(report);
  const staleHtml =
    stale.length === 0
      ? ''
      : `<section class="box"><h2>Stale baseline entries</h2><p>These are listed as expected failures but no longer fail; remove them from the baseline.</p><ul>${stale
          .map(
            (entry) =>
              `<li><code>${h(entry.id)}</code> ${entry.now === undefined ? 'is not a requirement of this catalog' : `now ${badge(entry.now)}`}</li>`,
          )
          .join('')}</ul></section>`;

  const areaRows = groups
    .map(({ area, results }) => `<tr><td><a href="#${anchor('area', area)}">${h(area)}</a></td>${countsCells(countVerdicts(results))}</tr>`)
    .join('\n');
  const totals = `<tr><th>All</th>${VERDICTS.map((verdict) => `<th>${summary[verdict]}</th>`).join('')}</tr>`;

  const filters = `<div class="filters">Show: ${VERDICTS.map(
    (verdict) => `<label><input type="checkbox" id="show-${verdict}" checked> ${badge(verdict)} ${summary[verdict]}</label>`,
  ).join('')}</div>`;

  const bodies = groups
    .map(({ area, results }) => {
      const counts = countVerdicts(results);
      const tally = VERDICTS.filter((verdict) => counts[verdict] > 0)
        .map((verdict) => `${counts[verdict]} ${verdict}`)
        .join(' · ');
      const rows = results.map(
        (result) =>
          `<tr data-verdict="${result.verdict}" id="${anchor('req', result.id)}"><td>${badge(result.verdict, result.baselined === undefined ? '' : '<span class="tag">baselined</span>')}</td><td><code>${h(result.id)}</code></td><td>${h(result.level)}</td><td>${detailsHtml(result)}</td></tr>`,
      );
      return `<tbody id="${anchor('area', area)}"><tr class="area"><th colspan="4">${h(area)}<span class="tally">${h(tally)}</span></th></tr>\n${rows.join('\n')}</tbody>`;
    })
    .join('\n');

  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'">
<meta name="referrer" content="no-referrer">
<title>A2A conformance · ${h(target.agentName ?? target.url)}</title>
<style>${STYLE}</style>
</head>
<body>
<header>
<h1>A2A conformance report${target.agentName === undefined ? '' : `: ${h(target.agentName)}`}</h1>
${status}
<p class="muted">${h(summaryLine(report))}</p>
</header>
<section>
<table class="kv">
${meta}
</table>
</section>
${warnings}
${staleHtml}
<section>
<h2>By area</h2>
<table class="counts">
<thead><tr><th>Area</th>${VERDICTS.map((verdict) => `<th>${verdict}</th>`).join('')}</tr></thead>
<tbody>
${areaRows}
</tbody>
<tfoot>${totals}</tfoot>
</table>
</section>
<section>
<h2>Requirements</h2>
${filters}
<table class="results">
<thead><tr><th>Verdict</th><th>ID</th><th>Level</th><th>Requirement</th></tr></thead>
${bodies}
</table>
</section>
</body>
</html>
`;
}
