/** Scenario runs and reports: the types shared by the runner, the control API, the CLI and the UI. */
export type ScenarioRunStatus = 'starting' | 'running' | 'passed' | 'failed' | 'stopped' | 'error';
export interface ScenarioProgress {
  /** 0..1 of the planned duration (emulated) or planned sends, whichever the run is bounded by. */
  fraction: number;
  sends: number; // sends the run made or observed (API + SMTP), copies counted per recipient
  plannedSends: number | null;
  events: number; // webhook events emitted
  deliveries: number; // delivery attempts made
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
export interface ScenarioExpectationResult {
  id: string;
  description: string;
  passed: boolean;
  observed: string;
  violations: ScenarioViolation[];
}
export interface ScenarioReport {
  version: 1;
  run: ScenarioRun;
  verdict: 'pass' | 'fail';
  scenario: { name: string; file: string | null; clockSpeed: number };
  totals: {
    sends: number;
    recipients: number;
    events: number;
    deliveries: number;
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
}
