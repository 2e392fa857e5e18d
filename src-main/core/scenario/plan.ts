import type { EmailEventKind } from '../../../src-shared/events';
import type { Scenario, ScenarioOutcome } from '../../../src-shared/scenario/format';
import { bounceFields, DELIVERY_DELAY_MS, retriedSoftBounce } from '../../../src-shared/simulator';
import { patternMatches } from '../services/simulation/plan';

/** One event the run fires about a captured copy: when (ms after its send), which kind, which fields. */
export interface ScenarioEvent {
  atMs: number;
  kind: EmailEventKind;
  fields: Record<string, unknown>;
  /** What the app must stop sending after (the expectation it feeds). */
  marks?: 'hardBounce' | 'complaint' | 'unsubscribe';
}

const ENGAGEMENT_DELAY_MS = 4_000;

/** A stable number in [0, 1) for an address and a seed (FNV-1a): every send to one address gets one fate. */
export function addressPoint(email: string, seed: number): number {
  let h = 0x811c9dc5 ^ seed;
  for (const ch of email.toLowerCase()) {
    h ^= ch.codePointAt(0)!;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return (h >>> 0) / 0x1_0000_0000;
}

/** The outcome of a recipient: the first pattern outcome that matches, else the share its address point falls in, else none (delivered). */
export function outcomeFor(scenario: Pick<Scenario, 'outcomes'>, email: string, seed: number): ScenarioOutcome | undefined {
  const byPattern = scenario.outcomes.find((o) => o.match.pattern !== undefined && patternMatches(o.match.pattern, email));
  if (byPattern) return byPattern;
  const point = addressPoint(email, seed);
  let upTo = 0;
  for (const o of scenario.outcomes) {
    if (o.match.share === undefined) continue;
    upTo += o.match.share;
    if (point < upTo) return o;
  }
  return undefined;
}

/**
 * A stable draw in [0, 1) for one copy: `copy` names it by what a rerun of the scenario repeats (its
 * address and its number among the run's copies to that address), never by its id, so the same seed
 * draws the same for it in every run.
 */
export function copyDraw(copy: string, salt: string, seed: number): number {
  return addressPoint(`${copy}/${salt}`, seed);
}

/** How a run names a copy for its draws: the address and which copy to it this is (1, 2, ...). */
export const copyKey = (email: string, nth: number) => `${email.toLowerCase()}#${nth}`;

/**
 * The events a copy gets under its outcome (none given: a delivery about 1 s after the send); `copy`
 * (copyKey) decides its opens and clicks.
 */
export function eventsFor(outcome: ScenarioOutcome | undefined, email: string, copy: string, seed: number): ScenarioEvent[] {
  const after = outcome?.after;
  const delivery = (atMs: number): ScenarioEvent => ({ atMs, kind: 'delivery', fields: {} });
  const events: ScenarioEvent[] = [];
  const fate = outcome?.fate ?? 'delivered';
  let deliveredAt: number | null = null;
  switch (fate) {
    case 'delivered':
      deliveredAt = after ?? DELIVERY_DELAY_MS;
      events.push(delivery(deliveredAt));
      break;
    case 'hard_bounce':
      events.push({ atMs: after ?? DELIVERY_DELAY_MS, kind: 'bounce', fields: bounceFields('hard', email), marks: 'hardBounce' });
      break;
    case 'soft_bounce':
    case 'deferred': {
      let atMs = 0;
      for (const e of retriedSoftBounce(email, { bounces: outcome?.retries, stepMs: after, then: outcome?.then })) {
        atMs += e.delayMs;
        if (e.event === 'delivery') deliveredAt = atMs;
        events.push({ atMs, kind: e.event, fields: e.fields, ...(e.fields.bounce_type === 'hard' ? { marks: 'hardBounce' as const } : {}) });
      }
      break;
    }
    case 'spam':
    case 'unsubscribe':
      deliveredAt = DELIVERY_DELAY_MS;
      events.push(delivery(deliveredAt));
      events.push({
        atMs: deliveredAt + (after ?? ENGAGEMENT_DELAY_MS),
        kind: fate,
        fields: {},
        marks: fate === 'spam' ? 'complaint' : 'unsubscribe',
      });
      break;
    case 'generation_failure':
    case 'generation_rejection':
    case 'policy_rejection':
    case 'smtp_error':
    case 'phishing':
      events.push({ atMs: after ?? DELIVERY_DELAY_MS, kind: fate, fields: {} });
      break;
    default:
      // Every fate has its case: a new one is a compile error here until it says what it fires.
      throw new Error(`no events for the fate ${fate satisfies never}`);
  }
  if (deliveredAt !== null) {
    for (const kind of ['open', 'click'] as const) {
      const engagement = kind === 'open' ? outcome?.opens : outcome?.clicks;
      if (engagement && copyDraw(copy, kind, seed) < engagement.share) {
        events.push({ atMs: deliveredAt + (engagement.after ?? ENGAGEMENT_DELAY_MS), kind, fields: {} });
      }
    }
  }
  return events.sort((a, b) => a.atMs - b.atMs);
}
