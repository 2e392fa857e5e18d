import type { Scenario } from '../../../src-shared/scenario/format';
import type { ScenarioExpectationResult, ScenarioReport, ScenarioRun } from '../../../src-shared/scenario/report';
import type { ScenarioObserver } from './observer';

export interface FaultStats {
  duplicates: number;
  reordered: number;
  delayed: number;
  outageRefusals: number;
}

function percentile(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** A bucket size that gives about 120 points over the run's emulated span (at least 1 s). */
function bucketFor(spanMs: number): number {
  return Math.max(1000, Math.ceil(spanMs / 120 / 1000) * 1000);
}

/** The expectations the scenario set, each judged on what the observer saw. */
function expectations(s: Scenario, o: ScenarioObserver, rt: ScenarioReport['responseTimes'], pendingAtEnd: number): ScenarioExpectationResult[] {
  const out: ScenarioExpectationResult[] = [];
  const kept = (id: string) => o.violations.get(id)?.kept ?? [];
  const count = (id: string) => o.violations.get(id)?.count ?? 0;
  const r = s.expect.receiver ?? {};
  if (r.acknowledgedAll) {
    const missing = o.events - o.acknowledged;
    out.push({
      id: 'acknowledgedAll',
      description: 'Every event is acknowledged with a 2xx (after retries)',
      passed: missing === 0,
      observed: `${o.acknowledged} of ${o.events} events acknowledged${pendingAtEnd > 0 ? `, ${pendingAtEnd} still pending at the end` : ''}`,
      violations: [],
    });
  }
  if (r.p95Ms !== undefined) {
    out.push({
      id: 'p95Ms',
      description: `The receiver's p95 response time is at most ${r.p95Ms} ms`,
      passed: rt.p95 === null || rt.p95 <= r.p95Ms,
      observed: rt.p95 === null ? 'no answered attempt' : `p95 ${rt.p95} ms`,
      violations: [],
    });
  }
  if (r.noGiveUps) {
    out.push({ id: 'noGiveUps', description: 'No event is given up on', passed: o.gaveUp === 0, observed: `${o.gaveUp} given up`, violations: [] });
  }
  const a = s.expect.app ?? {};
  const appChecks: Array<[keyof typeof a, string]> = [
    ['noSendAfterHardBounce', 'No send to an address after its hard bounce reached the app'],
    ['noSendAfterComplaint', 'No send to an address after its spam complaint reached the app'],
    ['noSendAfterUnsubscribe', 'No send to an address after its unsubscribe reached the app'],
    ['noMissingVariables', 'Templates render without a missing variable'],
  ];
  for (const [id, description] of appChecks) {
    if (a[id] !== true) continue;
    out.push({ id, description, passed: count(id) === 0, observed: `${count(id)} violation${count(id) === 1 ? '' : 's'}`, violations: kept(id) });
  }
  if (a.maxSendsPerRecipient !== undefined) {
    const max = Math.max(0, ...o.recipients.values());
    out.push({
      id: 'maxSendsPerRecipient',
      description: `No recipient gets more than ${a.maxSendsPerRecipient} sends`,
      passed: count('maxSendsPerRecipient') === 0,
      observed: `at most ${max} sends to one recipient`,
      violations: kept('maxSendsPerRecipient'),
    });
  }
  return out;
}

/** The expectations a scenario set, by name: those set to `true` or a number. */
const setChecks = (checks: Record<string, unknown> | undefined) =>
  Object.entries(checks ?? {})
    .filter(([, v]) => v !== undefined && v !== false)
    .map(([k]) => k);

/**
 * Why a run that went to its end cannot be judged, or null when it can: expectations of the app need
 * sends by the app (`sends.app`: the traffic's do not count; without an app, the traffic is what is
 * judged), and any expectation needs at least one send.
 */
export function nothingToJudge(s: Scenario, sends: { all: number; app: number }): string | null {
  const appChecks = setChecks(s.expect.app);
  const judged = s.app ? sends.app : sends.all;
  if (appChecks.length > 0 && judged === 0) {
    const who = s.app ? 'the app' : 'the traffic';
    return (
      `nothing to judge: the scenario expects things of ${who} (${appChecks.join(', ')}) but ${who} sent nothing, and a run that sends nothing is not a pass` +
      (s.app ? " (does the app send to MAILYARD_URL or MAIL_API_URL with MAILYARD_API_KEY? its output is in the run's log)" : '')
    );
  }
  if (setChecks(s.expect.receiver).length > 0 && sends.all === 0)
    return 'nothing to judge: the run made no send, so none of its expectations was put to the test';
  return null;
}

export function buildReport(input: {
  run: ScenarioRun;
  scenario: Scenario;
  file: string | null;
  clockSpeed: number;
  observer: ScenarioObserver;
  faults: FaultStats;
  pendingAtEnd: number;
}): ScenarioReport {
  const { run, scenario, observer: o } = input;
  const times = o.attempts
    .filter((x) => x.ms !== null)
    .map((x) => x.ms!)
    .sort((x, y) => x - y);
  const responseTimes = { p50: percentile(times, 50), p95: percentile(times, 95), p99: percentile(times, 99), max: times.at(-1) ?? null };
  const exp = expectations(scenario, o, responseTimes, input.pendingAtEnd);
  const bucketMs = bucketFor(run.progress.emulatedMs);
  const b = (t: number) => Math.floor(t / bucketMs) * bucketMs;
  const kinds = new Map<string, number>();
  for (const e of o.eventsByKind) kinds.set(`${b(e.t)} ${e.kind}`, (kinds.get(`${b(e.t)} ${e.kind}`) ?? 0) + 1);
  const sends = new Map<number, { count: number; violations: number }>();
  for (const s of o.sendTimes) {
    const row = sends.get(b(s.t)) ?? { count: 0, violations: 0 };
    row.count++;
    if (s.violation) row.violations++;
    sends.set(b(s.t), row);
  }
  const verdict = exp.every((e) => e.passed) && run.status !== 'error' ? 'pass' : 'fail';
  return {
    version: 1,
    run,
    verdict,
    scenario: { name: scenario.name, file: input.file, clockSpeed: input.clockSpeed },
    totals: {
      sends: o.sends,
      recipients: o.recipients.size,
      events: o.events,
      deliveries: o.attemptsMade,
      acknowledged: o.acknowledged,
      retries: o.retries,
      gaveUp: o.gaveUp,
      duplicates: input.faults.duplicates,
      reordered: input.faults.reordered,
      outageRefusals: input.faults.outageRefusals,
    },
    expectations: exp,
    series: {
      bucketMs,
      eventsByKind: [...kinds].map(([k, count]) => ({ t: Number(k.split(' ')[0]), kind: k.split(' ')[1]!, count })).sort((x, y) => x.t - y.t),
      sends: [...sends].map(([t, v]) => ({ t, ...v })).sort((x, y) => x.t - y.t),
      attempts: o.attempts,
    },
    responseTimes,
  };
}
