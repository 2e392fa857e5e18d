import type { ScenarioReport } from '../../../src-shared/scenario/report';

/**
 * Placeholder (scen-engine): scen-report owns this file and replaces it at merge with the real
 * self-contained HTML report (uPlot charts). Signature per the scenario contract.
 */
export function renderReportHtml(report: ScenarioReport, opts: { uplotJs: string; uplotCss: string }): string {
  void opts;
  const esc = (s: string): string => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html><html><head><meta charset="utf-8"><title>${esc(report.scenario.name)}</title></head>` +
    `<body><h1>${esc(report.scenario.name)}: ${report.verdict}</h1><pre>${esc(JSON.stringify(report, null, 2))}</pre></body></html>`;
}
