import type { ScenarioReport } from '../../../src-shared/scenario/report';

/**
 * The report's plots as uPlot's columns: `x` in emulated seconds since the run's start, then one
 * array per series (null: no point). Pure, so the HTML report and its tests share it.
 */
export interface ChartData {
  id: string;
  title: string;
  /** What the y axis counts. */
  unit: string;
  /** 'line' (a line or marks per series, over time), 'bars' (a histogram). */
  kind: 'line' | 'bars';
  /** x label: 'time' (emulated seconds) or the histogram's bin label. */
  xLabel: string;
  /** `points`: drawn as dots (marks), not joined by a line; `right`: on a scale of its own, the right axis. */
  series: Array<{ label: string; color: string; points?: boolean; right?: boolean }>;
  x: number[];
  y: Array<Array<number | null>>;
}

/** Colours that read on light and dark backgrounds. */
const PALETTE = ['#3b82f6', '#16a34a', '#dc2626', '#d97706', '#9333ea', '#0891b2', '#db2777', '#65a30d', '#64748b', '#ea580c'];
const color = (i: number) => PALETTE[i % PALETTE.length] ?? '#64748b';

const seconds = (ms: number) => Math.round(ms) / 1000;

/** Buckets beyond this many are not filled in (a run's series stays drawable whatever its bucket size). */
const MAX_FILLED_BUCKETS = 20_000;

/**
 * Every bucket's start (ms) from 0 to the last row's, so an empty stretch reads 0 rather than a line
 * drawn across it; only the buckets with rows when that would be more than MAX_FILLED_BUCKETS.
 */
function bucketsOf(ts: number[], bucketMs: number): number[] {
  const size = bucketMs > 0 ? bucketMs : 1000;
  const used = [...new Set(ts.map((t) => Math.floor(t / size) * size))].sort((a, b) => a - b);
  const last = used.at(-1);
  if (last === undefined || last / size + 1 > MAX_FILLED_BUCKETS) return used;
  return Array.from({ length: Math.max(0, Math.floor(last / size)) + 1 }, (_, i) => i * size);
}

export function eventsChart(report: ScenarioReport): ChartData {
  const rows = report.series.eventsByKind;
  const kinds = [...new Set(rows.map((r) => r.kind))].sort();
  const xs = bucketsOf(
    rows.map((r) => r.t),
    report.series.bucketMs,
  );
  const index = new Map(xs.map((t, i) => [t, i]));
  const size = report.series.bucketMs > 0 ? report.series.bucketMs : 1000;
  const y = kinds.map(() => xs.map(() => 0 as number | null));
  for (const r of rows) {
    const col = y[kinds.indexOf(r.kind)];
    const i = index.get(Math.floor(r.t / size) * size);
    if (col && i !== undefined) col[i] = (col[i] ?? 0) + r.count;
  }
  return {
    id: 'events',
    title: 'Events over time, by kind',
    unit: 'events',
    kind: 'line',
    xLabel: 'time',
    series: kinds.map((k, i) => ({ label: k, color: color(i) })),
    x: xs.map(seconds),
    y,
  };
}

export function responseTimeChart(report: ScenarioReport): ChartData {
  const answered = report.series.attempts.filter((a) => a.ms !== null).sort((a, b) => a.t - b.t);
  return {
    id: 'response-time',
    title: "Receiver's response time over time",
    unit: 'ms',
    kind: 'line',
    xLabel: 'time',
    series: [{ label: 'response time', color: color(0), points: true }],
    x: answered.map((a) => seconds(a.t)),
    y: [answered.map((a) => a.ms)],
  };
}

/** Response times in ~20 equal bins from 0 to the slowest (bins' upper bounds on x). */
export function responseHistogram(report: ScenarioReport): ChartData {
  const ms = report.series.attempts.flatMap((a) => (a.ms === null ? [] : [a.ms]));
  const base: ChartData = {
    id: 'response-histogram',
    title: 'Response time distribution',
    unit: 'attempts',
    kind: 'bars',
    xLabel: 'ms',
    series: [{ label: 'attempts', color: color(5) }],
    x: [],
    y: [[]],
  };
  if (ms.length === 0) return base;
  const max = Math.max(...ms);
  const width = Math.max(1, Math.ceil((max + 1) / 20));
  const bins = Math.ceil((max + 1) / width);
  const counts: number[] = Array.from({ length: bins }, () => 0);
  for (const v of ms) counts[Math.min(bins - 1, Math.floor(v / width))]! += 1;
  return { ...base, x: counts.map((_, i) => (i + 1) * width), y: [counts] };
}

export function retriesChart(report: ScenarioReport): ChartData {
  const attempts = report.series.attempts;
  const size = report.series.bucketMs > 0 ? report.series.bucketMs : 1000;
  const xs = bucketsOf(
    attempts.map((a) => a.t),
    size,
  );
  const index = new Map(xs.map((t, i) => [t, i]));
  const retries = xs.map(() => 0);
  const failures = xs.map(() => 0);
  for (const a of attempts) {
    const i = index.get(Math.floor(a.t / size) * size);
    if (i === undefined) continue;
    if (a.retry) retries[i]! += 1;
    if (!a.ok) failures[i]! += 1;
  }
  return {
    id: 'retries',
    title: 'Retries and failed attempts over time',
    unit: 'attempts',
    kind: 'line',
    xLabel: 'time',
    series: [
      { label: 'retries', color: color(3) },
      { label: 'failed attempts', color: color(2) },
    ],
    x: xs.map(seconds),
    y: [retries, failures],
  };
}

/** Sends by the app per bucket; violations as red marks on a scale of their own (the right axis). */
export function sendsChart(report: ScenarioReport): ChartData {
  const size = report.series.bucketMs > 0 ? report.series.bucketMs : 1000;
  const xs = bucketsOf(
    report.series.sends.map((r) => r.t),
    size,
  );
  const index = new Map(xs.map((t, i) => [t, i]));
  const sends: number[] = xs.map(() => 0);
  const marks: Array<number | null> = xs.map(() => null);
  for (const r of report.series.sends) {
    const i = index.get(Math.floor(r.t / size) * size);
    if (i === undefined) continue;
    sends[i]! += r.count;
    if (r.violations > 0) marks[i] = (marks[i] ?? 0) + r.violations;
  }
  return {
    id: 'sends',
    title: 'Sends over time, violations marked',
    unit: 'sends',
    kind: 'line',
    xLabel: 'time',
    series: [
      { label: 'sends', color: color(1) },
      { label: 'violations', color: color(2), points: true, right: true },
    ],
    x: xs.map(seconds),
    y: [sends, marks],
  };
}

export function reportCharts(report: ScenarioReport): ChartData[] {
  return [eventsChart(report), responseTimeChart(report), responseHistogram(report), retriesChart(report), sendsChart(report)];
}
