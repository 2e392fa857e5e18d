import type { ScenarioReport } from '../../../src-shared/scenario/report';

/**
 * The report's plots as uPlot's columns: `x` in the run's time unit (emulated seconds, minutes or
 * hours since its start, by its length), then one array per series (null: no point). Pure, so the
 * HTML report and its tests share it.
 */
export interface ChartData {
  id: string;
  title: string;
  /** What the y axis shows, with its unit ("events / min", "ms"). */
  unit: string;
  /** 'line' (a line or marks per series, over time), 'bars' (a histogram). */
  kind: 'line' | 'bars';
  /** The x axis's label: the time unit ("emulated minutes since the start") or the histogram's bins. */
  xLabel: string;
  /** Whether x is time (the legend's first column reads "time (min)"). */
  time: boolean;
  /**
   * `points`: drawn as dots (marks), not joined by a line; `right`: on a scale of its own, the right
   * axis; `step`: a rate per bucket, drawn flat across its bucket.
   */
  series: Array<{ label: string; color: string; points?: boolean; right?: boolean; step?: boolean }>;
  x: number[];
  y: Array<Array<number | null>>;
}

/** Colours that read on light and dark backgrounds. */
const PALETTE = ['#3b82f6', '#16a34a', '#dc2626', '#d97706', '#9333ea', '#0891b2', '#db2777', '#65a30d', '#64748b', '#ea580c'];
const color = (i: number) => PALETTE[i % PALETTE.length] ?? '#64748b';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Bucket sizes a reader takes in at a glance: the plots' rates are per one of these. */
const NICE_BUCKETS = [1, 2, 5, 10, 15, 30]
  .map((s) => s * SECOND)
  .concat(
    [1, 2, 5, 10, 15, 30].map((m) => m * MINUTE),
    [1, 2, 3, 6, 12].map((h) => h * HOUR),
    DAY,
  );

/**
 * A run's plots have at most this many buckets: enough to see its shape, few enough that each holds
 * several events (at 30, a steady 6 sends a minute read 4, 8, 4, 8 in 15 s buckets).
 */
export const MAX_BUCKETS = 20;

/** The bucket of a run's series: the smallest nice size that cuts its emulated length into at most MAX_BUCKETS. */
export function bucketFor(spanMs: number): number {
  const fits = NICE_BUCKETS.find((b) => Math.ceil(spanMs / b) <= MAX_BUCKETS);
  return fits ?? Math.ceil(spanMs / MAX_BUCKETS / DAY) * DAY;
}

/** The run's time unit: its plots' x axis, and the "per" of their rates. */
interface TimeUnit {
  ms: number;
  /** "s", "min", "h". */
  short: string;
  /** "seconds", "minutes", "hours". */
  plural: string;
}

const UNITS: TimeUnit[] = [
  { ms: SECOND, short: 's', plural: 'seconds' },
  { ms: MINUTE, short: 'min', plural: 'minutes' },
  { ms: HOUR, short: 'h', plural: 'hours' },
];

/** x in seconds for a run of up to 3 minutes, minutes up to 6 hours, hours beyond. */
export function timeUnitFor(spanMs: number): TimeUnit {
  return spanMs <= 3 * MINUTE ? UNITS[0]! : spanMs <= 6 * HOUR ? UNITS[1]! : UNITS[2]!;
}

/** Rates are per minute (events / min) up to 6 hours, per hour beyond: per second, a sparse run reads 0.02. */
export function rateUnitFor(spanMs: number): TimeUnit {
  return spanMs <= 6 * HOUR ? UNITS[1]! : UNITS[2]!;
}

/** What the plots of one report share: its bucket, its time unit, its rate unit, and its length. */
interface Frame {
  bucketMs: number;
  time: TimeUnit;
  rate: TimeUnit;
  /** Every bucket's start (ms) from 0 to the run's end. */
  buckets: number[];
  x: number[];
}

/**
 * Every bucket from 0 to the run's end (or the last row's, if later), so an empty stretch reads 0
 * rather than a line drawn across it.
 */
function frameOf(report: ScenarioReport, ts: number[]): Frame {
  const last = ts.reduce((m, t) => Math.max(m, t), 0);
  const span = Math.max(report.run.progress.emulatedMs, last);
  // The report's own bucket, unless it would cut the run into far more than a plot can show.
  const given = report.series.bucketMs;
  const bucketMs = given > 0 && span / given <= 4 * MAX_BUCKETS ? given : bucketFor(span);
  const time = timeUnitFor(span);
  // Buckets cover the run; one more if a row falls on its very end.
  const count = ts.length === 0 ? 0 : Math.max(Math.ceil(span / bucketMs), Math.floor(last / bucketMs) + 1);
  const buckets = Array.from({ length: count }, (_, i) => i * bucketMs);
  return { bucketMs, time, rate: rateUnitFor(span), buckets, x: buckets.map((t) => round(t / time.ms)) };
}

const round = (v: number) => Math.round(v * 1000) / 1000;
const xLabel = (f: Frame) => `emulated ${f.time.plural} since the start`;
/** A bucket's count as a rate per the frame's unit. */
const rate = (f: Frame, count: number) => round((count * f.rate.ms) / f.bucketMs);
const indexOf = (f: Frame, t: number) => Math.floor(t / f.bucketMs);
/** How a rate's unit and bucket read in a chart's title: "per minute, in 15 s buckets". */
const per = (f: Frame) => `per ${f.rate.short === 'min' ? 'minute' : 'hour'}, in ${bucketWords(f.bucketMs)} buckets`;

function bucketWords(ms: number): string {
  if (ms % DAY === 0) return `${ms / DAY} d`;
  if (ms % HOUR === 0) return `${ms / HOUR} h`;
  if (ms % MINUTE === 0) return `${ms / MINUTE} min`;
  return `${ms / SECOND} s`;
}

export function eventsChart(report: ScenarioReport): ChartData {
  const rows = report.series.eventsByKind;
  const kinds = [...new Set(rows.map((r) => r.kind))].sort();
  const f = frameOf(
    report,
    rows.map((r) => r.t),
  );
  const counts = kinds.map(() => f.buckets.map(() => 0));
  for (const r of rows) {
    const col = counts[kinds.indexOf(r.kind)];
    const i = indexOf(f, r.t);
    if (col && i < col.length) col[i]! += r.count;
  }
  return {
    id: 'events',
    title: `Events by kind, ${per(f)}`,
    unit: `events / ${f.rate.short}`,
    kind: 'line',
    xLabel: xLabel(f),
    time: true,
    series: kinds.map((k, i) => ({ label: k, color: color(i), step: true })),
    x: f.x,
    y: counts.map((col) => col.map((n) => rate(f, n))),
  };
}

export function responseTimeChart(report: ScenarioReport): ChartData {
  const answered = report.series.attempts.filter((a) => a.ms !== null).sort((a, b) => a.t - b.t);
  const f = frameOf(
    report,
    answered.map((a) => a.t),
  );
  return {
    id: 'response-time',
    title: "Receiver's response time, each answered attempt",
    unit: 'ms',
    kind: 'line',
    xLabel: xLabel(f),
    time: true,
    series: [{ label: 'response time', color: color(0), points: true }],
    x: answered.map((a) => round(a.t / f.time.ms)),
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
    xLabel: 'response time (ms, upper bound of each bin)',
    time: false,
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
  const f = frameOf(
    report,
    attempts.map((a) => a.t),
  );
  const retries = f.buckets.map(() => 0);
  const failures = f.buckets.map(() => 0);
  for (const a of attempts) {
    const i = indexOf(f, a.t);
    if (i >= retries.length) continue;
    if (a.retry) retries[i]! += 1;
    if (!a.ok) failures[i]! += 1;
  }
  return {
    id: 'retries',
    title: `Retries and failed attempts, ${per(f)}`,
    unit: `attempts / ${f.rate.short}`,
    kind: 'line',
    xLabel: xLabel(f),
    time: true,
    series: [
      { label: 'retries', color: color(3), step: true },
      { label: 'failed attempts', color: color(2), step: true },
    ],
    x: f.x,
    y: [retries.map((n) => rate(f, n)), failures.map((n) => rate(f, n))],
  };
}

/** Sends by the app as a rate per bucket; violations counted per bucket as red marks on a scale of their own (the right axis). */
export function sendsChart(report: ScenarioReport): ChartData {
  const f = frameOf(
    report,
    report.series.sends.map((r) => r.t),
  );
  const sends = f.buckets.map(() => 0);
  const marks: Array<number | null> = f.buckets.map(() => null);
  for (const r of report.series.sends) {
    const i = indexOf(f, r.t);
    if (i >= sends.length) continue;
    sends[i]! += r.count;
    if (r.violations > 0) marks[i] = (marks[i] ?? 0) + r.violations;
  }
  return {
    id: 'sends',
    title: `Sends, ${per(f)}; violations marked`,
    unit: `sends / ${f.rate.short}`,
    kind: 'line',
    xLabel: xLabel(f),
    time: true,
    series: [
      { label: 'sends', color: color(1), step: true },
      { label: 'violations (count)', color: color(2), points: true, right: true },
    ],
    x: f.x,
    y: [sends.map((n) => rate(f, n)), marks],
  };
}

export function reportCharts(report: ScenarioReport): ChartData[] {
  return [eventsChart(report), responseTimeChart(report), responseHistogram(report), retriesChart(report), sendsChart(report)];
}
