import type { Scenario } from '../../../src-shared/scenario/format';
import type { ScenarioExpectationResult, ScenarioReport, ScenarioRun, ScenarioVerdict, ScenarioViolation } from '../../../src-shared/scenario/report';
import type { ScenarioObserver } from './observer';
import { bucketFor } from './report-charts';

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

/** What the expectations are judged on. */
interface JudgeInput {
  scenario: Scenario;
  observer: ScenarioObserver;
  responseTimes: ScenarioReport['responseTimes'];
  pendingAtEnd: number;
  /** The sends the scenario's traffic made: with an app, the rest are the app's. */
  trafficRefs: ReadonlySet<string>;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * One expectation's result: failed when broken, else not judged when `nothing` says why nothing put it
 * to the test, else passed. A broken expectation is failed even if little was seen.
 */
function judged(
  id: string,
  description: string,
  failed: boolean,
  nothing: string | null,
  observed: string,
  violations: ScenarioViolation[] = [],
): ScenarioExpectationResult {
  const result = failed ? 'failed' : nothing === null ? 'passed' : 'not-judged';
  return { id, description, result, passed: result === 'passed', observed: result === 'not-judged' ? `nothing to judge: ${nothing}` : observed, violations };
}

const MARKS = [
  ['noSendAfterHardBounce', 'hardBounce', 'hard bounce', 'hard bounces'],
  ['noSendAfterComplaint', 'complaint', 'spam complaint', 'spam complaints'],
  ['noSendAfterUnsubscribe', 'unsubscribe', 'unsubscribe', 'unsubscribes'],
] as const;

/** The expectations the scenario set, each judged on what the observer saw: passed, failed, or not judged (nothing put it to the test). */
function expectations(input: JudgeInput): ScenarioExpectationResult[] {
  const { scenario: s, observer: o, responseTimes: rt, pendingAtEnd, trafficRefs } = input;
  const out: ScenarioExpectationResult[] = [];
  const kept = (id: string) => o.violations.get(id)?.kept ?? [];
  const count = (id: string) => o.violations.get(id)?.count ?? 0;
  const deliveries = o.deliveries.size;
  const noWebhook = 'no event went to a webhook (the account has none, or its filter took none of the events)';
  const r = s.expect.receiver ?? {};
  if (r.acknowledgedAll) {
    const missing = deliveries - o.acknowledged;
    out.push(
      judged(
        'acknowledgedAll',
        'Every event is acknowledged with a 2xx (after retries)',
        missing > 0,
        deliveries === 0 ? `${noWebhook}: nothing to acknowledge` : null,
        `${o.acknowledged} of ${plural(deliveries, 'webhook delivery', 'webhook deliveries')} acknowledged${pendingAtEnd > 0 ? `, ${pendingAtEnd} still pending at the end` : ''}`,
      ),
    );
  }
  if (r.p95Ms !== undefined) {
    out.push(
      judged(
        'p95Ms',
        `The receiver's p95 response time is at most ${r.p95Ms} ms`,
        rt.p95 !== null && rt.p95 > r.p95Ms,
        rt.p95 === null ? 'the receiver answered no attempt: there is no response time' : null,
        `p95 ${rt.p95} ms`,
      ),
    );
  }
  if (r.noGiveUps) {
    out.push(
      judged(
        'noGiveUps',
        'No event is given up on',
        o.gaveUp > 0,
        deliveries === 0 ? `${noWebhook}: none could be given up on` : null,
        `${o.gaveUp} given up of ${deliveries}`,
      ),
    );
  }
  const a = s.expect.app ?? {};
  // Whose sends the app's expectations judge: the app's when there is one, else the traffic's.
  const sender = s.app ? 'the app' : 'the traffic';
  const judgedSends = s.app ? o.sendsOutside(trafficRefs) : o.sends;
  const sentNothing = judgedSends === 0 ? `${sender} sent nothing` : null;
  for (const [id, mark, one, many] of MARKS) {
    if (a[id] !== true) continue;
    const description = `No send to an address after its ${one} reached the app`;
    if (!s.app) {
      out.push(judged(id, description, false, `there is no app: the traffic sends what the file says and cannot react to a ${one}`, ''));
      continue;
    }
    const fired = o.fired(mark);
    const known = o.known(mark);
    const first = o.firstKnown(mark);
    const after = first === null ? 0 : o.sendsOutsideSince(trafficRefs, first);
    const nothing =
      sentNothing ??
      (fired === 0
        ? `no ${one} happened in the run`
        : known === 0
          ? `${plural(fired, one, many)} fired, none reached the app (its receiver acknowledged none)`
          : after === 0
            ? `the app sent nothing after the first ${one} reached it`
            : null);
    out.push(
      judged(
        id,
        description,
        count(id) > 0,
        nothing,
        `${plural(count(id), 'violation')} in ${plural(after, 'send')} made after the first of ${plural(known, one, many)} reached the app`,
        kept(id),
      ),
    );
  }
  if (a.noMissingVariables === true) {
    const n = count('noMissingVariables');
    out.push(
      judged(
        'noMissingVariables',
        'Templates render without a missing variable',
        n > 0,
        sentNothing,
        `${plural(n, 'violation')} in ${plural(judgedSends, 'send')}`,
        kept('noMissingVariables'),
      ),
    );
  }
  if (a.maxSendsPerRecipient !== undefined) {
    const max = Math.max(0, ...o.recipients.values());
    out.push(
      judged(
        'maxSendsPerRecipient',
        `No recipient gets more than ${a.maxSendsPerRecipient} sends`,
        count('maxSendsPerRecipient') > 0,
        sentNothing,
        `at most ${plural(max, 'send')} to one recipient`,
        kept('maxSendsPerRecipient'),
      ),
    );
  }
  return out;
}

/** A run that did not go to its end judges nothing: what it saw is kept, none of it passed. */
function notJudged(e: ScenarioExpectationResult, status: 'error' | 'stopped'): ScenarioExpectationResult {
  const seen = e.observed.startsWith('nothing to judge') ? '' : ` (seen until then: ${e.observed})`;
  return { ...e, result: 'not-judged', passed: false, observed: `not judged: the run ${status === 'error' ? 'ended in error' : 'was stopped'}${seen}` };
}

/**
 * The verdict: a run in error or stopped fails (nothing it did can be judged); a broken expectation
 * fails; then an expectation that judged nothing, or none set, leaves it inconclusive; else it passes.
 */
export function verdictOf(status: ScenarioRun['status'], exps: readonly ScenarioExpectationResult[]): ScenarioVerdict {
  if (status === 'error' || status === 'stopped') return 'fail';
  if (exps.some((e) => e.result === 'failed')) return 'fail';
  if (exps.length === 0 || exps.some((e) => e.result === 'not-judged')) return 'inconclusive';
  return 'pass';
}

export function buildReport(input: {
  run: ScenarioRun;
  scenario: Scenario;
  file: string | null;
  clockSpeed: number;
  observer: ScenarioObserver;
  faults: FaultStats;
  pendingAtEnd: number;
  /** The sends the scenario's traffic made (their ref_ids): with an app, the others are the app's. */
  trafficRefs: ReadonlySet<string>;
}): ScenarioReport {
  const { run, scenario, observer: o } = input;
  const times = o.attempts
    .filter((x) => x.ms !== null)
    .map((x) => x.ms!)
    .sort((x, y) => x - y);
  const responseTimes = { p50: percentile(times, 50), p95: percentile(times, 95), p99: percentile(times, 99), max: times.at(-1) ?? null };
  const judgedAll = expectations({ scenario, observer: o, responseTimes, pendingAtEnd: input.pendingAtEnd, trafficRefs: input.trafficRefs });
  const ended = run.status === 'error' || run.status === 'stopped' ? run.status : null;
  const exp = ended ? judgedAll.map((e) => notJudged(e, ended)) : judgedAll;
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
  return {
    version: 1,
    run,
    verdict: verdictOf(run.status, exp),
    scenario: { name: scenario.name, file: input.file, clockSpeed: input.clockSpeed, seed: run.seed },
    totals: {
      sends: o.sends,
      recipients: o.recipients.size,
      events: o.events,
      deliveries: o.deliveries.size,
      attempts: o.attemptsMade,
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
    clock: { movedMs: run.progress.emulatedMs, wallMs: run.progress.elapsedMs, aheadMs: run.progress.emulatedMs - run.progress.elapsedMs },
  };
}
