import type { EmailEventKind } from './events';

/**
 * The shapes an email event's webhook body can take. `spec`: the service spec's payload, `event` the
 * lowercase kind (the default; the spec wins). `mailer-events`: the newer webhooks guide's, the same
 * fields inside a `mailer_events` object whose `event` is the guide's uppercase value.
 */
export const PAYLOAD_FORMATS = ['spec', 'mailer-events'] as const;
export type PayloadFormat = (typeof PAYLOAD_FORMATS)[number];

/**
 * `mailer_events.event` of each kind, as the newer guide's table of subscription keys and emitted
 * values gives it. One entry per kind: a new kind is a compile error here until it has its value.
 */
export const MAILER_EVENT_NAMES: Record<EmailEventKind, string> = {
  delivery: 'MAIL_DELIVERED',
  open: 'MAIL_OPENED',
  click: 'MAIL_CLICKED',
  bounce: 'MAIL_BOUNCE',
  spam: 'MAIL_SPAM',
  unsubscribe: 'MAIL_UNSUBSCRIBED',
  policy_rejection: 'MAIL_POLICY_REJECTION',
  generation_failure: 'MAIL_GENERATION_FAILURE',
  generation_rejection: 'MAIL_GENERATION_REJECTION',
  smtp_error: 'SMTP_ERROR',
  phishing: 'PHISHING',
  imap_error: 'IMAP_ERROR',
};

/** An email event's body in the newer guide's shape. */
export type MailerEventsBody = {
  mailer_events: { event: string } & Record<string, unknown>;
};

/**
 * The body a receiver gets for an email event payload (the spec's shape) in `format`. The guide shows
 * only `mailer_events.event`; the other fields are the spec payload's, unchanged, inside the object
 * (docs/webhooks.md says what is inferred).
 */
export function webhookBody<P extends { event: EmailEventKind }>(format: PayloadFormat, payload: P): P | MailerEventsBody {
  if (format === 'spec') return payload;
  return { mailer_events: { ...payload, event: MAILER_EVENT_NAMES[payload.event] } };
}

/** The event fields of a webhook body of either shape (the spec payload, or what `mailer_events` holds). */
export function eventFieldsOf(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null) return {};
  const inner = (body as { mailer_events?: unknown }).mailer_events;
  return (typeof inner === 'object' && inner !== null ? inner : body) as Record<string, unknown>;
}
