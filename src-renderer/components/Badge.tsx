import type { EmailEventKind } from '../../src-shared/events';
import { bounceOfReply } from '../../src-shared/simulator';

/** The colours a pill or tag can have: good, informative, waiting, a warning, bad, neutral. */
type Tone = 'ok' | 'info' | 'wait' | 'warn' | 'bad' | 'muted';

/** A status as a coloured pill: the colour says good, bad, waiting or neutral. */
const TONE: Record<string, Tone> = {
  delivered: 'ok',
  opened: 'ok',
  clicked: 'ok',
  succeeded: 'ok',
  verified: 'ok',
  queued: 'wait',
  sent: 'wait',
  pending: 'wait',
  sending: 'wait',
  unsubscribed: 'warn',
  bounced: 'bad',
  spam: 'bad',
  failed: 'bad',
  cancelled: 'muted',
};

export function Badge({ value, testId }: { value: string; testId?: string }) {
  return (
    <span className={`pill tone-${TONE[value] ?? 'muted'}`} data-testid={testId}>
      {value}
    </span>
  );
}

/**
 * A copy's status as its pill: a bounced copy says which bounce ("hard bounce", "soft bounce"), read
 * from its reply (the logs' failedReason); the title gives the reply itself.
 */
export function StatusBadge({ status, failedReason, testId }: { status: string; failedReason?: string; testId?: string }) {
  const bounce = status === 'bounced' && failedReason ? bounceOfReply(failedReason) : undefined;
  if (!bounce) return <Badge value={status} testId={testId} />;
  return (
    <span className="pill tone-bad" data-testid={testId} title={bounce.reply}>
      {bounce.type} bounce
    </span>
  );
}

/** Each email event kind's tone: one entry per kind (a new kind is a compile error until it has one). */
const EVENT_TONE: Record<EmailEventKind, Tone> = {
  delivery: 'ok',
  open: 'info',
  click: 'info',
  bounce: 'bad',
  spam: 'bad',
  unsubscribe: 'warn',
  policy_rejection: 'bad',
  generation_failure: 'bad',
  generation_rejection: 'bad',
  smtp_error: 'bad',
  phishing: 'bad',
  imap_error: 'bad',
};

export function EventTag({ event }: { event: string }) {
  // Also names that are not email events (relay_deferred, imap_message): muted.
  const tone = Object.hasOwn(EVENT_TONE, event) ? EVENT_TONE[event as EmailEventKind] : 'muted';
  return <span className={`tag tone-${tone}`}>{event}</span>;
}
