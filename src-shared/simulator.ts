import type { EmailEventKind } from './events';

/**
 * The simulator's addresses (API.md part 4) and the bounce replies of simulated and synthetic events:
 * one table for the simulation (src-main) and the Send page's address chips (the renderer).
 */

/** The simulator addresses live at this domain: `bounce@sim.mailyard.test`, `click+demo@sim.mailyard.test`. */
export const SIMULATOR_DOMAIN = 'sim.mailyard.test';

/** Delivery comes about 1 s after queueing; engagement (open, spam, unsubscribe) about 4 s after delivery. */
export const DELIVERY_DELAY_MS = 1_000;
export const ENGAGEMENT_DELAY_MS = 4_000;
const CLICK_DELAY_MS = 3_000;
/** A soft-bounced message is retried this long after each refusal, and refused this many times by default. */
export const SOFT_RETRY_MS = 60_000;
export const SOFT_BOUNCES = 2;

export type BounceType = 'hard' | 'soft';

/** The categories bounce replies are worded for (those the DSN reader gives too). */
export type BounceCategory = 'invalid_recipient' | 'mailbox_full' | 'mailbox_unavailable' | 'network' | 'policy';

/**
 * Bounce replies by category, as receiving servers word them (RFC 3463 enhanced status codes): the
 * soft (4.x.x) and the hard (5.x.x) reply.
 */
export const BOUNCE_REPLIES: Record<BounceCategory, Record<BounceType, (email: string) => string>> = {
  invalid_recipient: {
    soft: (e) => `450 4.1.1 <${e}>: Recipient address temporarily rejected: user lookup failed, try again later`,
    hard: (e) => `550 5.1.1 <${e}>: Recipient address rejected: User unknown in virtual mailbox table`,
  },
  mailbox_full: {
    soft: (e) => `452 4.2.2 <${e}>: Mailbox full: the recipient's mailbox is over its storage limit`,
    hard: (e) => `552 5.2.2 <${e}>: Mailbox full: the recipient's mailbox is over its storage limit`,
  },
  mailbox_unavailable: {
    soft: (e) => `450 4.2.1 <${e}>: Mailbox temporarily unavailable, try again later`,
    hard: (e) => `550 5.2.1 <${e}>: Mailbox disabled, not accepting messages`,
  },
  network: {
    soft: () => '421 4.4.2 Connection timed out while talking to the remote server',
    hard: () => '554 5.4.4 Unable to route: the recipient domain does not resolve',
  },
  policy: {
    soft: (e) => `450 4.7.1 <${e}>: Message temporarily deferred by the receiving server's policy`,
    hard: (e) => `550 5.7.1 <${e}>: Message rejected by the receiving server's policy`,
  },
};

/** The default category of a bounce of each type: a hard bounce is an unknown user, a soft one a full mailbox. */
export const DEFAULT_BOUNCE_CATEGORY: Record<BounceType, BounceCategory> = { hard: 'invalid_recipient', soft: 'mailbox_full' };

/** A bounce's fields: type, category and the reply that goes with them. */
export function bounceFields(type: BounceType, email: string, category: BounceCategory = DEFAULT_BOUNCE_CATEGORY[type]) {
  return { bounce_type: type, bounce_category: category, bounce_reason: BOUNCE_REPLIES[category][type](email) };
}

/** One simulated event: its kind, how long after the previous one it happens, and payload fields. */
export interface SimulatedEvent {
  event: EmailEventKind;
  delayMs: number;
  fields: Record<string, unknown>;
}

export interface SimulatorAddress {
  /** What it does, in a few words (the Send page's chips). */
  does: string;
  /** Its events, for a recipient address. */
  events: (email: string) => SimulatedEvent[];
}

/**
 * A message refused for now and retried, as a sending service does with a soft bounce: `bounces` soft
 * bounces (a full mailbox, a 452 4.2.2 reply) `stepMs` apart, the first `stepMs` after the send, then
 * at the next step its delivery, or (`then: 'bounce'`) the hard bounce of a service that gives up (the
 * mailbox still full: 552 5.2.2). The scenario format's `soft_bounce` fate and the `soft-bounce@`
 * simulator addresses both.
 */
export function retriedSoftBounce(email: string, options: { bounces?: number; stepMs?: number; then?: 'delivered' | 'bounce' } = {}): SimulatedEvent[] {
  const { bounces = SOFT_BOUNCES, stepMs = SOFT_RETRY_MS, then = 'delivered' } = options;
  const soft = Array.from({ length: bounces }, (): SimulatedEvent => ({ event: 'bounce', delayMs: stepMs, fields: bounceFields('soft', email) }));
  const end: SimulatedEvent =
    then === 'bounce'
      ? { event: 'bounce', delayMs: stepMs, fields: bounceFields('hard', email, 'mailbox_full') }
      : { event: 'delivery', delayMs: stepMs, fields: {} };
  return [...soft, end];
}

const delivery: SimulatedEvent = { event: 'delivery', delayMs: DELIVERY_DELAY_MS, fields: {} };
const after = (event: EmailEventKind): SimulatedEvent => ({ event, delayMs: ENGAGEMENT_DELAY_MS, fields: {} });
const only = (event: EmailEventKind, fields: Record<string, unknown> = {}): SimulatedEvent[] => [{ event, delayMs: DELIVERY_DELAY_MS, fields }];

/** The simulator addresses, by local part (before any `+tag`), in the order the Send page offers them. */
export const SIMULATOR_ADDRESSES = {
  delivered: { does: 'delivery', events: () => [delivery] },
  bounce: { does: 'hard bounce', events: (e) => only('bounce', bounceFields('hard', e)) },
  'hard-bounce': { does: 'hard bounce', events: (e) => only('bounce', bounceFields('hard', e)) },
  'soft-bounce': { does: 'soft bounces, retried, then delivery', events: (e) => retriedSoftBounce(e) },
  'soft-bounce-gives-up': { does: 'soft bounces, retried, then a hard bounce', events: (e) => retriedSoftBounce(e, { then: 'bounce' }) },
  spam: { does: 'delivery, spam', events: () => [delivery, after('spam')] },
  complaint: { does: 'delivery, spam complaint', events: () => [delivery, after('spam')] },
  open: { does: 'delivery, open', events: () => [delivery, after('open')] },
  click: { does: 'delivery, open, click', events: () => [delivery, after('open'), { event: 'click', delayMs: CLICK_DELAY_MS, fields: {} }] },
  unsubscribe: { does: 'delivery, unsubscribe', events: () => [delivery, after('unsubscribe')] },
  'policy-rejection': { does: 'policy_rejection', events: () => only('policy_rejection') },
  'generation-failure': { does: 'generation_failure', events: () => only('generation_failure') },
  'generation-rejection': { does: 'generation_rejection', events: () => only('generation_rejection') },
  'smtp-error': {
    does: 'smtp_error',
    events: () => only('smtp_error', { smtp_code: 550, smtp_response: '550 5.7.1 Message rejected by the receiving server' }),
  },
  phishing: { does: 'phishing', events: () => only('phishing') },
} satisfies Record<string, SimulatorAddress>;

export type SimulatorLocalPart = keyof typeof SIMULATOR_ADDRESSES;

/** The simulator address of a local part. */
export function simulatorAddress(local: SimulatorLocalPart): string {
  return `${local}@${SIMULATOR_DOMAIN}`;
}

/** The simulator address `email` is (its local part, `+tag` left out), if it is one. */
export function simulatorLocalPart(email: string): SimulatorLocalPart | undefined {
  const at = email.lastIndexOf('@');
  if (email.slice(at + 1).toLowerCase() !== SIMULATOR_DOMAIN) return undefined;
  const local = email.slice(0, at).split('+')[0]!.toLowerCase();
  return Object.hasOwn(SIMULATOR_ADDRESSES, local) ? (local as SimulatorLocalPart) : undefined;
}

/** The enhanced status code's subject and detail (RFC 3463 `X.S.D`, the part after the class) of each category's replies. */
const CATEGORY_OF_CODE: Array<[RegExp, BounceCategory]> = [
  [/^1\./, 'invalid_recipient'],
  [/^2\.2$/, 'mailbox_full'],
  [/^2\./, 'mailbox_unavailable'],
  [/^4\./, 'network'],
  [/^7\./, 'policy'],
];

/**
 * A bounce's type and category read back from its SMTP reply (a copy's `failedReason`): a 5xx reply is
 * a hard bounce, a 4xx a soft one; the category from the enhanced status code as BOUNCE_REPLIES words
 * them (undefined when the reply has none this table knows). Undefined for a text that is no SMTP reply.
 */
export function bounceOfReply(reply: string): { type: BounceType; category: BounceCategory | undefined; reply: string } | undefined {
  const m = /^([45])\d\d(?:[ -]([45])\.(\d{1,3}\.\d{1,3}))?/.exec(reply.trim());
  if (!m) return undefined;
  const detail = m[3];
  const category = detail === undefined ? undefined : CATEGORY_OF_CODE.find(([re]) => re.test(detail))?.[1];
  return { type: m[1] === '5' ? 'hard' : 'soft', category, reply: reply.trim() };
}
