import type { ClockMove } from './clock-move';

/** Scenario runs and reports: the types shared by the runner, the control API, the CLI and the UI. */
/**
 * `inconclusive`: the run went to its end but an expectation had nothing to judge (or the scenario set
 * none), so it is neither a pass nor a fail.
 */
export type ScenarioRunStatus = 'starting' | 'running' | 'passed' | 'failed' | 'inconclusive' | 'stopped' | 'error';
/** A run's verdict: `inconclusive` when an expectation judged nothing and none failed (docs/scenarios.md). */
export type ScenarioVerdict = 'pass' | 'fail' | 'inconclusive';
export interface ScenarioProgress {
  /** 0..1 of the planned duration (emulated) or planned sends, whichever the run is bounded by. */
  fraction: number;
  sends: number; // sends the run made or observed (API + SMTP), copies counted per recipient
  plannedSends: number | null;
  events: number; // email events the run fired about its copies (delivery, bounce, open, ...)
  deliveries: number; // webhook deliveries of those events (a duplicate is a delivery of its own)
  attempts: number; // delivery attempts made (first tries and retries)
  acknowledged: number; // deliveries answered 2xx
  failedAttempts: number;
  violations: number;
  elapsedMs: number; // wall
  emulatedMs: number; // emulator clock elapsed
}
export interface ScenarioRun {
  id: string;
  name: string;
  /** The scenario file: a scenarios folder's file as listed, or the file the CLI or testing API named; null for posted text. */
  file: string | null;
  status: ScenarioRunStatus;
  startedAt: string;
  finishedAt: string | null;
  accountId: string;
  /** Whether the run made its account (a new one, removable with it) rather than using an existing one. */
  newAccount: boolean;
  /** The seed of the run's random choices (the scenario's, else 1): a run of the same file with it fires the same events. */
  seed: number;
  progress: ScenarioProgress;
  /** Why the run ended in `error` (an app that exited or never became ready, nothing to judge, ...). */
  error: string | null;
}
/** One line of a run's log: the runner's own steps, and the app's stdout and stderr. */
export interface ScenarioLogLine {
  /** 1, 2, ... in the order written (dropped lines keep their numbers). */
  n: number;
  /** Wall-clock ISO time. */
  at: string;
  source: 'runner' | 'stdout' | 'stderr';
  text: string;
}
export interface ScenarioViolation {
  expectation: string; // the expectation's id, e.g. 'noSendAfterHardBounce'
  message: string; // one sentence a person reads
  at: string; // ISO time (emulator clock)
  recipient?: string;
  messageId?: string; // copy id: the UI links /messages/{id}
  eventId?: string;
  deliveryId?: string; // the UI links /deliveries/{id}
}
/**
 * `not-judged`: nothing put the expectation to the test (no event went to a webhook, no hard bounce
 * reached the app, ...), or the run ended before its verdict (error, stopped); `observed` says which.
 */
export type ScenarioExpectationOutcome = 'passed' | 'failed' | 'not-judged';
export interface ScenarioExpectationResult {
  id: string;
  description: string;
  result: ScenarioExpectationOutcome;
  /** `result === 'passed'`: an expectation that judged nothing is not passed. */
  passed: boolean;
  observed: string;
  violations: ScenarioViolation[];
}
export interface ScenarioReport {
  version: 1;
  run: ScenarioRun;
  verdict: ScenarioVerdict;
  scenario: { name: string; file: string | null; clockSpeed: number; seed: number };
  totals: {
    sends: number;
    recipients: number;
    /** Email events the run fired about its copies, whether or not a webhook took them. */
    events: number;
    /** Webhook deliveries: one per event the account's webhook takes, one more per duplicate. */
    deliveries: number;
    /** Attempts of those deliveries: first tries and retries. */
    attempts: number;
    /** Deliveries answered 2xx. */
    acknowledged: number;
    retries: number;
    gaveUp: number;
    duplicates: number;
    reordered: number;
    outageRefusals: number;
  };
  expectations: ScenarioExpectationResult[];
  series: {
    /** Emulated ms since the run's start, bucketed (bucketMs), one row per bucket and kind. */
    bucketMs: number;
    eventsByKind: Array<{ t: number; kind: string; count: number }>;
    sends: Array<{ t: number; count: number; violations: number }>;
    /** Each attempt: emulated t, receiver's response time in ms (null: no answer), HTTP status (null: none), outcome. */
    attempts: Array<{ t: number; ms: number | null; status: number | null; ok: boolean; retry: boolean }>;
  };
  responseTimes: { p50: number | null; p95: number | null; p99: number | null; max: number | null };
  /** How far the run moved the emulator clock, which every account shares and which is never moved back. */
  clock: ClockMove;
}

/** Why a verdict is inconclusive, naming each expectation that judged nothing and why; null for another verdict. */
export function inconclusiveReason(report: Pick<ScenarioReport, 'verdict' | 'expectations'>): string | null {
  if (report.verdict !== 'inconclusive') return null;
  if (report.expectations.length === 0) return 'the scenario sets no expectations, so nothing was judged';
  const none = report.expectations.filter((e) => e.result === 'not-judged');
  const why = none.map((e) => `${e.id} (${e.observed.replace(/^nothing to judge: /, '')})`).join('; ');
  return `${none.length} ${none.length === 1 ? 'expectation' : 'expectations'} judged nothing: ${why}`;
}
