import { describe, expect, it } from 'vitest';
import { Scenario } from '../../../../src-shared/scenario/format';
import { faultsFor } from '../../../../src-main/core/scenario/faults';
import { eventsFor, outcomeFor } from '../../../../src-main/core/scenario/plan';

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
    expect(f.random!()).toBe(faultsFor(s, 0, 3)!.random!());
    expect(faultsFor(scenario({}), 0, 1)).toBeNull();
  });
});
