import type { SimulationRule } from '../../../../src-shared/schemas/email';
import { DELIVERY_DELAY_MS, SIMULATOR_ADDRESSES, type SimulatedEvent, simulatorLocalPart } from '../../../../src-shared/simulator';

/** One simulated event: its kind, how long after the previous one it happens, and payload fields. */
export type PlannedEvent = SimulatedEvent;

export type Plan = { kind: 'suppressed' } | { kind: 'events'; source: 'rule' | 'simulator' | 'default'; events: PlannedEvent[] };

/** A rule's pattern against an address: case-insensitive, `*` matches any run of characters. */
export function patternMatches(pattern: string, email: string): boolean {
  const escaped = pattern
    .toLowerCase()
    .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*');
  return new RegExp(`^${escaped}$`).test(email.toLowerCase());
}

/** What happens to a message to `email`: suppression, then rules, then simulator addresses, then delivery. */
export function planFor(email: string, suppressed: boolean, rules: readonly SimulationRule[]): Plan {
  if (suppressed) return { kind: 'suppressed' };
  const rule = rules.find((r) => patternMatches(r.pattern, email));
  if (rule) {
    return {
      kind: 'events',
      source: 'rule',
      events: rule.events.map((e) => ({ event: e.event, delayMs: e.delay_ms, fields: e.fields ?? {} })),
    };
  }
  const local = simulatorLocalPart(email);
  if (local) return { kind: 'events', source: 'simulator', events: SIMULATOR_ADDRESSES[local].events(email) };
  return { kind: 'events', source: 'default', events: [{ event: 'delivery', delayMs: DELIVERY_DELAY_MS, fields: {} }] };
}
