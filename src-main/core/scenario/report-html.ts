import { clockMoveSentence } from '../../../src-shared/scenario/clock-move';
import { inconclusiveReason, type ScenarioExpectationResult, type ScenarioReport, type ScenarioViolation } from '../../../src-shared/scenario/report';
import { reportCharts } from './report-charts';
import { CHART_SCRIPT, REPORT_CSS } from './report-html-parts';

export interface RenderReportOptions {
  /** uPlot's minified IIFE script (see loadUplotAssets), inlined. */
  uplotJs: string;
  /** uPlot's stylesheet, inlined. */
  uplotCss: string;
  /** Where the emulator's UI is, for the violations' links (`http://127.0.0.1:4400`); default: relative links (`/messages/{id}`). */
  baseUrl?: string;
}

/**
 * The policy to serve the report with (the `report.html` route's Content-Security-Policy header): its
 * inline script and styles only, no network, framed only by the UI, and a sandbox (scripts, never the
 * emulator's origin) even when opened on its own. The file carries the same minus the sandbox in a meta tag.
 */
export const REPORT_HTML_CSP =
  "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'self'; sandbox allow-scripts";

/** The verdict's class (its colours). */
const VERDICT_CLASS = { pass: 'pass', fail: 'fail', inconclusive: 'none' } as const;

/** Text for HTML content and attribute values. */
export function escapeHtml(value: unknown): string {
  return String(value ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** JSON safe inside a <script> element (no `</script>`, no `<!--`, no line separators that break JS). */
function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** Inlined third-party text that must not close its element early. */
const inlineSafe = (text: string, tag: 'script' | 'style') => text.replace(new RegExp(`</(${tag})`, 'gi'), '<\\/$1');

function link(base: string, path: string, label: string): string {
  return `<a href="${escapeHtml(base + path)}">${escapeHtml(label)}</a>`;
}

function violationLinks(v: ScenarioViolation, base: string): string {
  const links: string[] = [];
  if (v.messageId) links.push(link(base, `/messages/${encodeURIComponent(v.messageId)}`, `message ${v.messageId}`));
  if (v.eventId) links.push(link(base, `/deliveries?q=${encodeURIComponent(v.eventId)}`, `event ${v.eventId}`));
  if (v.deliveryId) links.push(link(base, `/deliveries/${encodeURIComponent(v.deliveryId)}`, `delivery ${v.deliveryId}`));
  return links.length ? links.join('<br>') : '<span class="muted">none</span>';
}

function violationsTable(expectations: ScenarioExpectationResult[], base: string): string {
  const rows = expectations.flatMap((e) =>
    e.violations.map(
      (v) =>
        `<tr><td><code>${escapeHtml(v.expectation || e.id)}</code></td><td>${escapeHtml(v.message)}</td>` +
        `<td>${escapeHtml(v.recipient ?? '')}</td><td><time>${escapeHtml(v.at)}</time></td><td>${violationLinks(v, base)}</td></tr>`,
    ),
  );
  if (rows.length === 0) return '<p class="muted" id="no-violations">No expectation was violated.</p>';
  return (
    `<table id="violations"><caption>Every violation (${rows.length})</caption><thead><tr><th scope="col">Expectation</th>` +
    `<th scope="col">What happened</th><th scope="col">Recipient</th><th scope="col">At (emulator clock)</th><th scope="col">Shown by</th></tr></thead>` +
    `<tbody>${rows.join('')}</tbody></table>`
  );
}

/** How an expectation's result reads in the report (its row's class, its words). */
const RESULT_WORDS = { passed: ['pass', '✔ passed'], failed: ['fail', '✘ failed'], 'not-judged': ['none', '– not judged'] } as const;

function expectationsTable(expectations: ScenarioExpectationResult[]): string {
  if (expectations.length === 0) return '<p class="muted">The scenario set no expectations: nothing was judged.</p>';
  const rows = expectations.map(
    (e) =>
      `<tr class="${RESULT_WORDS[e.result][0]}"><td>${RESULT_WORDS[e.result][1]}</td><td><code>${escapeHtml(e.id)}</code></td>` +
      `<td>${escapeHtml(e.description)}</td><td>${escapeHtml(e.observed)}</td><td>${e.violations.length}</td></tr>`,
  );
  return (
    `<table id="expectations"><thead><tr><th scope="col">Result</th><th scope="col">Expectation</th><th scope="col">Description</th>` +
    `<th scope="col">Observed</th><th scope="col">Violations</th></tr></thead><tbody>${rows.join('')}</tbody></table>`
  );
}

function totals(report: ScenarioReport): string {
  const t = report.totals;
  const rt = report.responseTimes;
  const ms = (v: number | null) => (v === null ? '–' : `${Math.round(v)} ms`);
  const items: Array<[string, string | number]> = [
    ['Sends', t.sends],
    ['Recipients', t.recipients],
    ['Events', t.events],
    ['Webhook deliveries', t.deliveries],
    ['Delivery attempts', t.attempts],
    ['Acknowledged', t.acknowledged],
    ['Retries', t.retries],
    ['Given up', t.gaveUp],
    ['Duplicates', t.duplicates],
    ['Reordered', t.reordered],
    ['Outage refusals', t.outageRefusals],
    ['p50', ms(rt.p50)],
    ['p95', ms(rt.p95)],
    ['p99', ms(rt.p99)],
    ['Slowest', ms(rt.max)],
  ];
  return `<dl class="totals">${items.map(([k, v]) => `<div><dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd></div>`).join('')}</dl>`;
}

/**
 * The scenario report as ONE self-contained HTML file for people: verdict, totals, plots (uPlot,
 * inlined) and every violation with links to the emulator's UI. Loads nothing from the network
 * (its Content-Security-Policy forbids it). Everything taken from the report is escaped.
 */
export function renderReportHtml(report: ScenarioReport, opts: RenderReportOptions): string {
  const base = (opts.baseUrl ?? '').replace(/\/+$/, '');
  const verdict = VERDICT_CLASS[report.verdict];
  const run = report.run;
  const charts = reportCharts(report);
  const title = `${report.verdict.toUpperCase()}: ${report.scenario.name}`;
  const inconclusive = inconclusiveReason(report);
  const csp = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:";
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Mailyard scenario report</title>
<style>${inlineSafe(opts.uplotCss, 'style')}</style>
<style>${REPORT_CSS}</style>
</head>
<body>
<header class="verdict ${verdict}" id="verdict">
<h1><span class="badge">${report.verdict.toUpperCase()}</span> ${escapeHtml(report.scenario.name)}</h1>
<p>Run <code>${escapeHtml(run.id)}</code> · ${escapeHtml(run.status)} · started ${escapeHtml(run.startedAt)}${run.finishedAt ? ` · finished ${escapeHtml(run.finishedAt)}` : ''}
 · clock ×${escapeHtml(report.scenario.clockSpeed)} · seed <span id="seed">${escapeHtml(report.scenario.seed)}</span>${report.scenario.file ? ` · file <code>${escapeHtml(report.scenario.file)}</code>` : ''}</p>
<p id="clock-move">${escapeHtml(clockMoveSentence(report.clock))}</p>
${run.error ? `<p class="error">${escapeHtml(run.error)}</p>` : ''}
${inconclusive ? `<p class="inconclusive" id="inconclusive">Inconclusive: ${escapeHtml(inconclusive)}. An expectation with nothing to judge is not met.</p>` : ''}
</header>
<main>
<section aria-labelledby="h-totals"><h2 id="h-totals">Totals</h2>${totals(report)}</section>
<section aria-labelledby="h-exp"><h2 id="h-exp">Expectations</h2>${expectationsTable(report.expectations)}</section>
<section aria-labelledby="h-viol"><h2 id="h-viol">Violations</h2>${violationsTable(report.expectations, base)}</section>
<section aria-labelledby="h-charts" id="plots"><h2 id="h-charts">Plots</h2>
<p class="muted">Time is the emulator's clock since the run started, in the unit its axis names. Rates are counts per bucket of the run's time, shown per minute (per hour for a run of over 6 hours).</p>
<div class="charts">${charts.map((c) => `<figure id="chart-${c.id}"><figcaption>${escapeHtml(c.title)}</figcaption><div class="plot"></div></figure>`).join('')}</div>
</section>
</main>
<script type="application/json" id="report-charts">${scriptJson(charts)}</script>
<script>${inlineSafe(opts.uplotJs, 'script')}</script>
<script>${CHART_SCRIPT}</script>
</body>
</html>
`;
}
