/**
 * The email event kinds of the service (spec part 2.2 / 6.2), in the spec's order. Everything that
 * names the kinds or counts them reads this list, and what each kind does is a table keyed by
 * `EmailEventKind`: a new kind here is a compile error at each place that must say what it does
 * (docs/architecture.md, "Recipe: add an event kind").
 */
export const EMAIL_EVENT_KINDS = [
  'delivery',
  'open',
  'click',
  'bounce',
  'spam',
  'unsubscribe',
  'policy_rejection',
  'generation_failure',
  'generation_rejection',
  'smtp_error',
  'phishing',
  'imap_error',
] as const;
export type EmailEventKind = (typeof EMAIL_EVENT_KINDS)[number];

/** Webhook categories (spec part 6.1). At most one webhook per category per account. */
export const WEBHOOK_EVENTS = ['EMAIL_EVENT', 'DOMAIN_VERIFICATION'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

export const WEBHOOK_METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'] as const;
export type WebhookMethod = (typeof WEBHOOK_METHODS)[number];
