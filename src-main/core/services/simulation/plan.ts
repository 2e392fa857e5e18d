import type { EmailEventKind } from '../../../../src-shared/events';
import type { SimulationRule } from '../../../../src-shared/schemas/email';

/** One simulated event: its kind, how long after the previous one it happens, and payload fields. */
export interface PlannedEvent {
  event: EmailEventKind;
  delayMs: number;
  fields: Record<string, unknown>;
}

export type Plan = { kind: 'suppressed' } | { kind: 'events'; source: 'rule' | 'simulator' | 'default'; events: PlannedEvent[] };

/** The simulator addresses live at this domain: `bounce@sim.mailyard.test`, `click+demo@sim.mailyard.test`. */
export const SIMULATOR_DOMAIN = 'sim.mailyard.test';

const DELIVERY_DELAY = 1_000;
const ENGAGEMENT_DELAY = 4_000;

const delivery: PlannedEvent = { event: 'delivery', delayMs: DELIVERY_DELAY, fields: {} };
const after = (event: EmailEventKind, fields: Record<string, unknown> = {}): PlannedEvent => ({ event, delayMs: ENGAGEMENT_DELAY, fields });
const only = (event: EmailEventKind, fields: Record<string, unknown> = {}): PlannedEvent[] => [{ event, delayMs: DELIVERY_DELAY, fields }];

/** Bounce replies as receiving servers word them (RFC 3463 enhanced status codes). */
function hardBounce(email: string): Record<string, unknown> {
  return {
    bounce_type: 'hard',
    bounce_category: 'invalid_recipient',
    bounce_reason: `550 5.1.1 <${email}>: Recipient address rejected: User unknown in virtual mailbox table`,
  };
}

function softBounce(email: string): Record<string, unknown> {
  return {
    bounce_type: 'soft',
    bounce_category: 'mailbox_full',
    bounce_reason: `452 4.2.2 <${email}>: Mailbox full: the recipient's mailbox is over its storage limit`,
  };
}

/** The contract's simulator addresses (part 4), by local part. */
const SIMULATOR: Record<string, (email: string) => PlannedEvent[]> = {
  delivered: () => [delivery],
  bounce: (e) => only('bounce', hardBounce(e)),
  'hard-bounce': (e) => only('bounce', hardBounce(e)),
  'soft-bounce': (e) => only('bounce', softBounce(e)),
  spam: () => [delivery, after('spam')],
  complaint: () => [delivery, after('spam')],
  open: () => [delivery, after('open')],
  click: () => [delivery, after('open'), { event: 'click', delayMs: 3_000, fields: {} }],
  unsubscribe: () => [delivery, after('unsubscribe')],
  'policy-rejection': () => only('policy_rejection'),
  'generation-failure': () => only('generation_failure'),
  'generation-rejection': () => only('generation_rejection'),
  'smtp-error': () => only('smtp_error', { smtp_code: 550, smtp_response: '550 5.7.1 Message rejected by the receiving server' }),
  phishing: () => only('phishing'),
};

/** A rule's pattern against an address: case-insensitive, `*` matches any run of characters. */
export function patternMatches(pattern: string, email: string): boolean {
  const escaped = pattern.toLowerCase().replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*');
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
  const at = email.lastIndexOf('@');
  const domain = email.slice(at + 1).toLowerCase();
  if (domain === SIMULATOR_DOMAIN) {
    const local = email.slice(0, at).split('+')[0]!.toLowerCase();
    const simulate = SIMULATOR[local];
    if (simulate) return { kind: 'events', source: 'simulator', events: simulate(email) };
  }
  return { kind: 'events', source: 'default', events: [delivery] };
}
