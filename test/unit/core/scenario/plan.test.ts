import { describe, expect, it } from 'vitest';
import type { EnqueueInput } from '../../../../src-main/core/dispatch/delivery-outbox';
import { faultsFor } from '../../../../src-main/core/scenario/faults';
import { copyKey, eventsFor, outcomeFor } from '../../../../src-main/core/scenario/plan';
import { Scenario } from '../../../../src-shared/scenario/format';

/** A delivery of an email event about the copy of `refId` to `email`, as the dispatcher is given it. */
const delivery = (refId: string, email: string, event: string): EnqueueInput => ({
  accountId: 'acc_1',
  target: { kind: 'webhook', id: 'wh_1', url: 'http://127.0.0.1:1/' },
  category: 'EMAIL_EVENT',
  event,
  refId,
  payload: { event, ref_id: refId, recipient: { email } },
});

const scenario = (extra: Record<string, unknown>) => Scenario.parse({ version: 1, name: 'p', traffic: { count: 1 }, ...extra });

describe('scenario outcomes and faults', () => {
  it('a pattern wins over a share; shares take about their part of the addresses, the same address always the same', () => {
    const s = scenario({
      outcomes: [
        { match: { share: 0.1 }, fate: 'hard_bounce' },
        { match: { pattern: 'vip@*' }, fate: 'delivered' },
        { match: { share: 0.05 }, fate: 'spam' },
      ],
    });
    expect(outcomeFor(s, 'VIP@example.test', 1)?.fate).toBe('delivered');
    const fates = Array.from({ length: 10_000 }, (_, i) => outcomeFor(s, `user${i}@example.test`, 1)?.fate ?? 'none');
    const share = (f: string) => fates.filter((x) => x === f).length / fates.length;
    expect(share('hard_bounce')).toBeGreaterThan(0.08);
    expect(share('hard_bounce')).toBeLessThan(0.12);
    expect(share('spam')).toBeGreaterThan(0.035);
    expect(share('spam')).toBeLessThan(0.065);
    expect(outcomeFor(s, 'user7@example.test', 1)).toBe(outcomeFor(s, 'user7@example.test', 1));
  });

  it('a soft bounce retried then bounced: soft bounces apart, then a hard one that marks the address', () => {
    const s = scenario({ outcomes: [{ match: { pattern: '*' }, fate: 'soft_bounce', retries: 2, after: '1m', then: 'bounce' }] });
    const events = eventsFor(s.outcomes[0], 'a@x.test', 'm1', 1);
    expect(events.map((e) => [e.atMs, e.kind, e.fields.bounce_type, e.marks])).toEqual([
      [60_000, 'bounce', 'soft', undefined],
      [120_000, 'bounce', 'soft', undefined],
      [180_000, 'bounce', 'hard', 'hardBounce'],
    ]);
    expect(eventsFor(undefined, 'a@x.test', 'm1', 1)).toEqual([{ atMs: 1000, kind: 'delivery', fields: {} }]);
  });

  it('webhookDelivery maps to the dispatcher faults, outages from the run start', () => {
    const s = scenario({
      webhookDelivery: {
        duplicates: 0.02,
        reorder: { share: 0.1, window: '30s' },
        delay: { distribution: 'uniform', min: '1s', max: '5s' },
        outages: [{ at: '2m', for: '10m' }],
      },
    });
    const f = faultsFor(s, 1_000_000, 3)!;
    expect(f).toMatchObject({
      duplicates: 0.02,
      reorder: { share: 0.1, windowMs: 30_000 },
      delay: { distribution: 'uniform', minMs: 1000, maxMs: 5000 },
      outages: [{ fromMs: 1_120_000, toMs: 1_720_000 }],
    });
    // A delivery of no copy of the run's draws from the seed's sequence.
    const none = delivery('ref_x', 'a@x.test', 'delivery');
    expect(f.random!(none, 'duplicate')).toBe(faultsFor(s, 0, 3)!.random!(none, 'duplicate'));
    expect(faultsFor(scenario({}), 0, 1)).toBeNull();
  });

  it("a copy's fault draws are keyed by what a rerun repeats: the same in any order, anew for a second event of one kind", () => {
    const s = scenario({ webhookDelivery: { duplicates: 0.5 } });
    // Two runs: the copies' ref_ids differ (ids are new each run), their keys (address and number) do not.
    const run = (refs: Record<string, string>) => faultsFor(s, 0, 1, (ref) => refs[ref ?? ''])!.random!;
    const first = run({ r1: 'a@x.test#1', r2: 'b@x.test#1' });
    const second = run({ q1: 'a@x.test#1', q2: 'b@x.test#1' });
    const a1 = first(delivery('r1', 'a@x.test', 'bounce'), 'duplicate');
    const b1 = first(delivery('r2', 'b@x.test', 'delivery'), 'duplicate');
    const a2 = first(delivery('r1', 'a@x.test', 'bounce'), 'duplicate');
    // The other run asks in another order.
    expect(second(delivery('q2', 'b@x.test', 'delivery'), 'duplicate')).toBe(b1);
    expect(second(delivery('q1', 'a@x.test', 'bounce'), 'duplicate')).toBe(a1);
    expect(second(delivery('q1', 'a@x.test', 'bounce'), 'duplicate')).toBe(a2);
    expect(a2).not.toBe(a1);
    expect(first(delivery('r1', 'a@x.test', 'bounce'), 'delay')).not.toBe(a1);
  });

  it("a copy's opens and clicks are drawn by its address and number, not its id", () => {
    const s = scenario({ outcomes: [{ match: { pattern: '*' }, fate: 'delivered', opens: { share: 0.5 }, clicks: { share: 0.5 } }] });
    const kinds = (copy: string) => eventsFor(s.outcomes[0], 'a@x.test', copy, 1).map((e) => e.kind);
    const all = Array.from({ length: 40 }, (_, i) => kinds(copyKey('a@x.test', i + 1)).join(','));
    expect(kinds(copyKey('A@x.test', 7))).toEqual(kinds(copyKey('a@x.test', 7)));
    // About half open: both outcomes occur.
    expect(all.some((k) => k.includes('open'))).toBe(true);
    expect(all.some((k) => !k.includes('open'))).toBe(true);
  });
});
