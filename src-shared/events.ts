/**
 * The email event kinds and their type come from the payload table (schemas/events.ts,
 * EMAIL_EVENT_PAYLOADS): a kind is its payload's key.
 */
export { EMAIL_EVENT_KINDS, type EmailEventKind } from './schemas/events';

/** Webhook categories (spec part 6.1). At most one webhook per category per account. */
export const WEBHOOK_EVENTS = ['EMAIL_EVENT', 'DOMAIN_VERIFICATION'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

export const WEBHOOK_METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'] as const;
export type WebhookMethod = (typeof WEBHOOK_METHODS)[number];
