import { ERROR_STATUS } from '../../src-shared/errors';
import type { SendEmailBody } from '../../src-shared/schemas/email';
import type { ConfigureMailerBody } from '../../src-shared/schemas/mailers';
import { appError } from './error-catalogue';
import type { AppError } from './errors';

/**
 * Requests the real service's docs say it refuses and Mailyard takes (a local tool should not block a
 * developer), never silently: each is answered with a warning (`X-Mailyard-Warning`), and
 * `--strict-requests` answers the service's refusal instead. docs/warnings.md lists them with their
 * sources; a rule here is a row there.
 */
export const WOULD_REFUSE_RULES = {
  'unverified-sender': 'https://edith-docs-typesparrow.pages.dev/guides/email-sending',
  'empty-subject': 'https://edith-docs-typesparrow.pages.dev/guides/email-sending',
  'attachment-without-type': 'https://edith-docs-typesparrow.pages.dev/guides/email-sending',
  'smtp-without-credentials': 'https://docs.typesparrow.com/guides/smtp-imap-config',
  'date-without-time': 'https://edith-docs-typesparrow.pages.dev/guides/email-logs',
} as const;
export type WouldRefuseRule = keyof typeof WOULD_REFUSE_RULES;

/** One thing of a request the service would refuse: the rule, what was found, and the service's answer. */
export interface WouldRefuse {
  rule: WouldRefuseRule;
  /** What of the request breaks the rule, in words. */
  found: string;
  /** The service's documented refusal, answered under --strict-requests. */
  refusal: AppError;
}

/** A warning as `X-Mailyard-Warning` and the stores say it: `rule: found; the real service answers 400 ...`. */
export function warningText(w: WouldRefuse): string {
  return `${w.rule}: ${w.found}; the real service answers ${ERROR_STATUS[w.refusal.code]} ${w.refusal.message}`;
}

/** A send the service would refuse: a sender outside the account's verified domains, an empty subject, an attachment without its type. */
export function sendWouldRefuse(body: SendEmailBody, senderVerified: boolean): WouldRefuse[] {
  const out: WouldRefuse[] = [];
  const fromDomain = body.from.email.slice(body.from.email.lastIndexOf('@') + 1).toLowerCase();
  if (!senderVerified) {
    out.push({
      rule: 'unverified-sender',
      found: `${fromDomain} is not a verified domain of this account`,
      refusal: appError('senderDomainUnverified', { domain: fromDomain, option: '--strict-requests' }),
    });
  }
  if (body.subject !== undefined && body.subject.trim() === '') {
    out.push({ rule: 'empty-subject', found: 'subject is empty', refusal: appError('invalidField', { path: 'subject', problem: 'is required' }) });
  }
  (body.attachments ?? []).forEach((a, i) => {
    if (a.type === undefined || a.type === '') {
      const path = `attachments.${i}.type`;
      out.push({
        rule: 'attachment-without-type',
        found: `${path} is missing`,
        refusal: appError('invalidField', { path, problem: 'is required (the MIME type)' }),
      });
    }
  });
  return out;
}

/** An SMTP configuration (basic login) without the username and password the guide marks required. */
export function smtpConfigWouldRefuse(body: ConfigureMailerBody): WouldRefuse[] {
  return smtpCredentialsWouldRefuse({
    connection_type: body.connection_type,
    username: Boolean(body.config.username),
    password: Boolean(body.config.password),
  });
}

/**
 * The same rule of an SMTP configuration as it stands (created, or updated since): what of its login
 * is missing. The control API's mailer and the Mailers screen say it until an update gives both.
 */
export function smtpCredentialsWouldRefuse(c: { connection_type: string; username: boolean; password: boolean }): WouldRefuse[] {
  if (c.connection_type !== 'basic') return [];
  return (['username', 'password'] as const)
    .filter((f) => !c[f])
    .map((f) => ({
      rule: 'smtp-without-credentials' as const,
      found: `config.${f} is missing`,
      refusal: appError('invalidField', { path: `config.${f}`, problem: 'is required' }),
    }));
}

const DATE_ONLY = /^\d{4}-\d\d-\d\d$/;

/** A date of the logs query given without its time (the guide: RFC 3339 date-times). */
export function logsQueryWouldRefuse(query: Record<string, unknown>): WouldRefuse[] {
  return (['startCreatedAt', 'endCreatedAt', 'startDeliveredDate', 'endDeliveredDate'] as const)
    .filter((f) => typeof query[f] === 'string' && DATE_ONLY.test(query[f] as string))
    .map((f) => ({
      rule: 'date-without-time' as const,
      found: `${f} is a date without a time (taken as its start, 00:00 UTC)`,
      refusal: appError('invalidField', { path: f, problem: 'must be an RFC 3339 date-time such as 2026-11-22T10:00:00Z' }),
    }));
}
