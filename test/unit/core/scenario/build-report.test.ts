import { describe, expect, it } from 'vitest';
import { buildReport } from '../../../../src-main/core/scenario/build-report';
import { ScenarioObserver } from '../../../../src-main/core/scenario/observer';
import { validateScenario } from '../../../../src-main/core/scenario/parse';
import type { ScenarioEvent } from '../../../../src-main/core/scenario/plan';
import type { ScenarioInput } from '../../../../src-shared/scenario/format';
import type { ScenarioRun } from '../../../../src-shared/scenario/report';
import type { AttemptRecord, DeliverySummary } from '../../../../src-shared/schemas/dispatch';
import type { MessageSummary } from '../../../../src-shared/schemas/messages';

const START = Date.UTC(2026, 0, 1);
const iso = (ms: number) => new Date(ms).toISOString();

function scenario(input: Partial<ScenarioInput>) {
  const r = validateScenario({ version: 1, name: 'judge', ...input });
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.scenario;
}

const traffic = { traffic: { count: 3 } };
const withApp = { app: { command: 'node app.js' } };

/** What the runner's live-bus handlers feed the observer, as plain steps. */
class Feed {
  readonly o: ScenarioObserver;
  private n = 0;
  constructor(
    readonly s: ReturnType<typeof scenario>,
    private readonly account = 'acc_1',
  ) {
    this.o = new ScenarioObserver(account, s.expect, START, iso, s.app !== undefined);
  }
  /** A copy to `email` of the send `ref`, at `t` ms into the run. */
  send(email: string, t: number, ref = `ref_${++this.n}`): string {
    const id = `msg_${++this.n}`;
    this.o.onMessage({ id, ref_id: ref, account_id: this.account, recipient: { email } } as MessageSummary, START + t);
    return id;
  }
  /** An event fired at `t`; with `webhook`, its delivery (made as the dispatcher does, before the run hears back). */
  fire(kind: ScenarioEvent['kind'], email: string, messageId: string, t: number, webhook = false, marks?: ScenarioEvent['marks']): string | null {
    const deliveryId = webhook ? `dlv_${++this.n}` : null;
    if (deliveryId) this.o.onDeliveryCreated({ id: deliveryId, account_id: this.account, event: kind } as DeliverySummary);
    this.o.onFired({ atMs: 0, kind, fields: {}, ...(marks ? { marks } : {}) }, email, messageId, deliveryId, START + t);
    return deliveryId;
  }
  attempt(deliveryId: string, number: number, ok: boolean, t: number): void {
    this.o.onAttempt(
      deliveryId,
      { number, outcome: ok ? 'succeeded' : 'failed', duration_ms: 12, response: ok ? { status: 200 } : null } as AttemptRecord,
      START + t,
    );
  }
  report(status: ScenarioRun['status'] = 'passed', trafficRefs: ReadonlySet<string> = new Set()) {
    const run = {
      id: 'run_1',
      name: 'judge',
      file: null,
      status,
      startedAt: iso(START),
      finishedAt: iso(START + 60_000),
      accountId: 'acc_1',
      error: null,
      progress: { emulatedMs: 60_000 },
    } as ScenarioRun;
    const faults = { duplicates: 0, reordered: 0, delayed: 0, outageRefusals: 0 };
    return buildReport({ run, scenario: this.s, file: null, clockSpeed: 60, observer: this.o, faults, pendingAtEnd: 0, trafficRefs });
  }
}

const results = (r: ReturnType<Feed['report']>) => Object.fromEntries(r.expectations.map((e) => [e.id, e.result]));

describe('buildReport: an expectation with nothing to judge is not met', () => {
  it('traffic only, no app, no webhook: the receiver and reaction expectations judge nothing and the run is inconclusive', () => {
    const f = new Feed(
      scenario({
        ...traffic,
        expect: { receiver: { acknowledgedAll: true, noGiveUps: true, p95Ms: 500 }, app: { noSendAfterHardBounce: true, maxSendsPerRecipient: 1 } },
      }),
    );
    for (const [i, email] of ['a@x.test', 'b@x.test', 'c@x.test'].entries()) {
      const id = f.send(email, i * 100);
      f.fire(i === 0 ? 'bounce' : 'delivery', email, id, i * 100 + 1000, false, i === 0 ? 'hardBounce' : undefined);
    }
    const report = f.report();
    expect(report.verdict).toBe('inconclusive');
    expect(results(report)).toEqual({
      acknowledgedAll: 'not-judged',
      p95Ms: 'not-judged',
      noGiveUps: 'not-judged',
      noSendAfterHardBounce: 'not-judged',
      maxSendsPerRecipient: 'passed',
    });
    for (const e of report.expectations.filter((x) => x.result === 'not-judged')) {
      expect(e.passed).toBe(false);
      expect(e.observed).toMatch(/^nothing to judge: /);
    }
    expect(report.expectations.find((e) => e.id === 'acknowledgedAll')?.observed).toMatch(/no event went to a webhook/);
    expect(report.expectations.find((e) => e.id === 'noSendAfterHardBounce')?.observed).toMatch(/there is no app: the traffic .* cannot react/);
  });

  it('a scenario that sets no expectation is inconclusive, not a pass', () => {
    const f = new Feed(scenario({ ...traffic }));
    f.send('a@x.test', 0);
    expect(f.report().verdict).toBe('inconclusive');
  });

  it('the app: judged once a hard bounce reached it and it sent again; not judged when none reached it or it sent nothing after', () => {
    const s = scenario({ ...withApp, expect: { app: { noSendAfterHardBounce: true } } });
    // The bounce is acknowledged by the app's receiver at 3 s; the app sends to another address at 60 s.
    const judged = new Feed(s);
    const gone = judged.send('gone@x.test', 0);
    judged.attempt(judged.fire('bounce', 'gone@x.test', gone, 2000, true, 'hardBounce')!, 1, true, 3000);
    judged.send('ann@x.test', 60_000);
    const passed = judged.report();
    expect(passed.verdict).toBe('pass');
    expect(passed.expectations[0]).toMatchObject({
      result: 'passed',
      passed: true,
      observed: '0 violations in 1 send made after the first of 1 hard bounce reached the app',
    });

    // Fired, but the receiver never acknowledged it: the app was never told.
    const untold = new Feed(s);
    const id = untold.send('gone@x.test', 0);
    untold.attempt(untold.fire('bounce', 'gone@x.test', id, 2000, true, 'hardBounce')!, 1, false, 3000);
    untold.send('ann@x.test', 60_000);
    expect(untold.report().expectations[0]).toMatchObject({
      result: 'not-judged',
      observed: expect.stringMatching(/1 hard bounce fired, none reached the app/),
    });

    // Told, then silent.
    const silent = new Feed(s);
    const first = silent.send('gone@x.test', 0);
    silent.attempt(silent.fire('bounce', 'gone@x.test', first, 2000, true, 'hardBounce')!, 1, true, 3000);
    expect(silent.report().expectations[0]).toMatchObject({
      result: 'not-judged',
      observed: expect.stringMatching(/sent nothing after the first hard bounce/),
    });

    // No bounce at all.
    const none = new Feed(s);
    none.send('ann@x.test', 0);
    expect(none.report().expectations[0]?.observed).toMatch(/no hard bounce happened in the run/);
  });

  it('the app sent nothing (only the traffic did): its expectations judge nothing', () => {
    const f = new Feed(scenario({ ...withApp, ...traffic, expect: { app: { maxSendsPerRecipient: 2, noMissingVariables: true } } }));
    f.send('a@x.test', 0, 'traffic_1');
    const report = f.report('passed', new Set(['traffic_1']));
    expect(report.verdict).toBe('inconclusive');
    expect(report.expectations.map((e) => [e.result, e.observed])).toEqual([
      ['not-judged', 'nothing to judge: the app sent nothing'],
      ['not-judged', 'nothing to judge: the app sent nothing'],
    ]);
  });

  it('a broken expectation fails the run even beside one that judged nothing', () => {
    const f = new Feed(scenario({ ...traffic, expect: { receiver: { acknowledgedAll: true }, app: { maxSendsPerRecipient: 1 } } }));
    f.send('same@x.test', 0);
    f.send('same@x.test', 100);
    const report = f.report();
    expect(results(report)).toEqual({ acknowledgedAll: 'not-judged', maxSendsPerRecipient: 'failed' });
    expect(report.verdict).toBe('fail');
  });

  it('a run in error or stopped shows every expectation as not judged, never passed', () => {
    for (const status of ['error', 'stopped'] as const) {
      const f = new Feed(scenario({ ...traffic, expect: { app: { maxSendsPerRecipient: 5 }, receiver: { acknowledgedAll: true } } }));
      f.send('a@x.test', 0);
      const report = f.report(status);
      expect(report.verdict).toBe('fail');
      expect(report.expectations.map((e) => [e.id, e.result, e.passed])).toEqual([
        ['acknowledgedAll', 'not-judged', false],
        ['maxSendsPerRecipient', 'not-judged', false],
      ]);
      expect(report.expectations[1]?.observed).toBe(
        `not judged: the run ${status === 'error' ? 'ended in error' : 'was stopped'} (seen until then: at most 1 send to one recipient)`,
      );
    }
  });
});

describe('buildReport: events, webhook deliveries and attempts are counted apart', () => {
  it('6 events, each a delivery tried three times: 6 deliveries and 18 attempts, all acknowledged', () => {
    const f = new Feed(scenario({ ...traffic, expect: { receiver: { acknowledgedAll: true, noGiveUps: true } } }));
    for (let i = 0; i < 6; i++) {
      const email = `u${i}@x.test`;
      const delivery = f.fire('delivery', email, f.send(email, i * 10), 1000 + i * 10, true)!;
      f.attempt(delivery, 1, false, 2000);
      f.attempt(delivery, 2, false, 30_000);
      f.attempt(delivery, 3, true, 50_000);
    }
    const report = f.report();
    expect(report.totals).toMatchObject({ sends: 6, events: 6, deliveries: 6, attempts: 18, retries: 12, acknowledged: 6 });
    expect(report.expectations[0]).toMatchObject({ result: 'passed', observed: '6 of 6 webhook deliveries acknowledged' });
    expect(report.verdict).toBe('pass');
  });

  it('events fired with no webhook are counted (and plotted) though no delivery is made', () => {
    const f = new Feed(scenario({ ...traffic }));
    const id = f.send('a@x.test', 0);
    f.fire('delivery', 'a@x.test', id, 1000);
    f.fire('open', 'a@x.test', id, 5000);
    const report = f.report();
    expect(report.totals).toMatchObject({ events: 2, deliveries: 0, attempts: 0 });
    expect(report.series.eventsByKind.reduce((n, r) => n + r.count, 0)).toBe(2);
  });
});
