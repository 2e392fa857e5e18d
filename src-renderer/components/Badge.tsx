/** A status as a coloured pill: the colour says good, bad, waiting or neutral. */
const TONE: Record<string, string> = {
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

const EVENT_TONE: Record<string, string> = {
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
  return <span className={`tag tone-${EVENT_TONE[event] ?? 'muted'}`}>{event}</span>;
}
