import type { EmailEventKind } from '../../../../src-shared/events';
import { BOUNCE_REPLIES, type BounceCategory, DEFAULT_BOUNCE_CATEGORY } from '../../../../src-shared/simulator';

/** What a synthetic event says when the caller gives nothing else; `fields` override any of it. */
export interface SyntheticContext {
  timestamp: string;
  refId: string;
  recipient: string;
}

/** A realistic payload of each kind, so a receiver can be exercised without sending mail first. */
export function defaultPayload(kind: EmailEventKind, ctx: SyntheticContext): Record<string, unknown> {
  const common = { event: kind, timestamp: ctx.timestamp, ref_id: ctx.refId, campaign_id: '', custom_args: {} };
  const recipient = { email: ctx.recipient };
  switch (kind) {
    case 'delivery':
      return {
        ...common,
        recipient: { email: ctx.recipient, name: '' },
        sender: { email: 'sender@example.com', name: 'Mailyard' },
        subject: 'Test email from Mailyard',
        mailer_id: '',
      };
    case 'open':
      return {
        ...common,
        recipient,
        user_agent: 'Mozilla/5.0 (Mailyard synthetic event)',
        ip_address: '203.0.113.10',
        geo_location: { country: 'United States', city: 'San Francisco' },
      };
    case 'click':
      return {
        ...common,
        recipient,
        url: 'https://example.com/',
        link_name: 'Example link',
        user_agent: 'Mozilla/5.0 (Mailyard synthetic event)',
        ip_address: '203.0.113.10',
      };
    case 'bounce':
      return { ...common, recipient, ...bounceDefaults(ctx.recipient) };
    case 'spam':
    case 'unsubscribe':
      return { ...common, recipient };
    case 'policy_rejection':
      return { ...common, recipient, reason: 'Message rejected: content violates the sending policy', rule: 'content-policy' };
    case 'generation_failure':
      return { ...common, recipient, reason: 'Template rendering failed: variable "first_name" is undefined', error_code: 'template_error' };
    case 'generation_rejection':
      return { ...common, recipient, reason: 'Content validation failed: the subject is empty' };
    case 'smtp_error':
      return { ...common, recipient, mailer_id: '', smtp_code: 421, smtp_response: '421 4.4.2 Connection timed out while talking to the remote server' };
    case 'phishing':
      return { ...common, recipient, reason: 'Links point to a known phishing domain', urls: ['http://login-verify.example/account'] };
    case 'imap_error':
      return { ...common, mailer_id: '', host: 'imap.example.com', error: 'AUTHENTICATIONFAILED Invalid credentials' };
  }
}

/**
 * A bounce's type, category and reason when `fields` leave some of them out: the defaults follow what
 * is given (a soft bounce is `mailbox_full` unless a category is given, and the reason matches the type
 * and category: a soft `mailbox_full` bounce gets a 452 4.2.2 reply, never the hard default's 550 5.1.1).
 */
export function bounceDefaults(email: string, fields: Record<string, unknown> = {}): { bounce_type: string; bounce_category: string; bounce_reason: string } {
  const type = fields.bounce_type === 'soft' ? 'soft' : 'hard';
  const category = typeof fields.bounce_category === 'string' ? fields.bounce_category : DEFAULT_BOUNCE_CATEGORY[type];
  const replies = Object.hasOwn(BOUNCE_REPLIES, category) ? BOUNCE_REPLIES[category as BounceCategory] : undefined;
  const reason = replies
    ? replies[type](email)
    : type === 'soft'
      ? `450 4.0.0 <${email}>: Temporary failure (${category}), try again later`
      : `550 5.0.0 <${email}>: Permanent failure (${category})`;
  return { bounce_type: type, bounce_category: category, bounce_reason: reason };
}
