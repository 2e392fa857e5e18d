/** The HTML report's own stylesheet: light and dark (the reader's colour scheme). */
export const REPORT_CSS = `
:root { color-scheme: light dark; --bg: #ffffff; --fg: #111827; --muted: #6b7280; --line: #e5e7eb; --card: #f9fafb;
  --pass: #15803d; --pass-bg: #dcfce7; --fail: #b91c1c; --fail-bg: #fee2e2; --none: #92400e; --none-bg: #fef3c7; --link: #1d4ed8; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #0f1115; --fg: #e5e7eb; --muted: #9ca3af; --line: #2a2f3a; --card: #171a21;
    --pass: #4ade80; --pass-bg: #052e16; --fail: #f87171; --fail-bg: #3b0a0a; --none: #fbbf24; --none-bg: #3a2a05; --link: #93c5fd; }
}
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, sans-serif; background: var(--bg); color: var(--fg); }
main, .verdict { max-width: 1200px; margin: 0 auto; padding: 12px 20px; }
a { color: var(--link); }
code { font-family: ui-monospace, monospace; font-size: 0.95em; }
.muted { color: var(--muted); }
.verdict { border-bottom: 3px solid; }
.verdict.pass { border-color: var(--pass); } .verdict.fail { border-color: var(--fail); } .verdict.none { border-color: var(--none); }
.verdict h1 { margin: 8px 0 4px; font-size: 22px; }
.badge { display: inline-block; padding: 2px 10px; border-radius: 6px; font-size: 18px; }
.pass .badge { background: var(--pass-bg); color: var(--pass); } .fail .badge { background: var(--fail-bg); color: var(--fail); }
.none .badge { background: var(--none-bg); color: var(--none); }
.inconclusive { color: var(--none); }
.error { color: var(--fail); }
h2 { font-size: 17px; margin: 18px 0 8px; }
.totals { display: grid; grid-template-columns: repeat(auto-fill, minmax(120px, 1fr)); gap: 8px; margin: 0; }
.totals div { background: var(--card); border: 1px solid var(--line); border-radius: 6px; padding: 6px 10px; }
.totals dt { color: var(--muted); font-size: 12px; } .totals dd { margin: 0; font-size: 18px; font-variant-numeric: tabular-nums; }
table { border-collapse: collapse; width: 100%; }
caption { text-align: left; color: var(--muted); padding: 4px 0; }
th, td { text-align: left; vertical-align: top; border-bottom: 1px solid var(--line); padding: 5px 8px; }
tr.pass td:first-child { color: var(--pass); } tr.fail td:first-child { color: var(--fail); } tr.none td:first-child { color: var(--none); }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(100%, 420px), 1fr)); gap: 14px; }
figure { margin: 0; background: var(--card); border: 1px solid var(--line); border-radius: 6px; padding: 8px; min-width: 0; }
figcaption { font-weight: 600; margin-bottom: 4px; }
.plot .empty { color: var(--muted); padding: 30px 0; text-align: center; }
.u-legend { font-size: 12px; }
.charts-only > header, .charts-only main > section:not(#plots), .charts-only #plots > h2 { display: none; }
.charts-only main { padding: 8px; }
`;

/**
 * Draws each chart of `#report-charts` with uPlot (the global `uPlot` of its IIFE build). A chart with
 * no data says so instead. Plain ES2017, no imports: it runs from a file on disk or in a sandboxed iframe.
 */
export const CHART_SCRIPT = `
(function () {
  // '#charts': only the plots (the UI frames them under its own verdict, totals and tables).
  if (location.hash === '#charts') document.body.classList.add('charts-only');
  var charts = JSON.parse(document.getElementById('report-charts').textContent);
  var dark = window.matchMedia && window.matchMedia('(prefers-color-scheme: dark)').matches;
  var axisStroke = dark ? '#9ca3af' : '#4b5563';
  var grid = { stroke: dark ? '#2a2f3a' : '#e5e7eb', width: 1 };
  charts.forEach(function (c) {
    var box = document.querySelector('#chart-' + c.id + ' .plot');
    if (!box) return;
    if (c.x.length === 0) {
      box.innerHTML = '<p class="empty">No data in this run.</p>';
      return;
    }
    var bars = c.kind === 'bars' && uPlot.paths && uPlot.paths.bars ? uPlot.paths.bars({ size: [0.9, 60] }) : null;
    // A rate per bucket holds across its bucket: drawn as steps from each bucket's start.
    var stepped = uPlot.paths && uPlot.paths.stepped ? uPlot.paths.stepped({ align: 1 }) : null;
    var series = [{ label: c.time ? 'time' : c.xLabel }].concat(c.series.map(function (s) {
      if (c.kind === 'bars') return { label: s.label, stroke: s.color, fill: s.color + '99', paths: bars, points: { show: false } };
      var scale = s.right ? 'right' : 'y';
      if (s.points) return { label: s.label, scale: scale, stroke: s.color, paths: function () { return null; }, points: { show: true, size: 9, fill: s.color } };
      if (s.step && stepped) return { label: s.label, scale: scale, stroke: s.color, fill: s.color + '22', width: 2, paths: stepped, points: { show: false } };
      return { label: s.label, scale: scale, stroke: s.color, width: 2, spanGaps: false, points: { show: c.x.length < 60 } };
    }));
    var right = c.series.filter(function (s) { return s.right; })[0];
    var width = Math.max(280, Math.floor(box.getBoundingClientRect().width) || 420);
    new uPlot({
      width: width, height: 240, series: series,
      scales: { x: { time: false }, y: { range: function (u, min, max) { return [Math.min(0, min), max > 0 ? max * 1.1 : 1]; } }, right: { range: function (u, min, max) { return [0, Math.max(1, max) * 1.25]; } } },
      axes: [
        { stroke: axisStroke, grid: grid, label: c.xLabel },
        { stroke: axisStroke, grid: grid, label: c.unit, scale: 'y' }
      ].concat(right ? [{ stroke: right.color, grid: { show: false }, label: right.label, scale: 'right', side: 1 }] : [])
    }, [c.x].concat(c.y), box);
  });
})();
`;
