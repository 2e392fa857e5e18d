import { AppError } from '../../errors';
import type { SenderPolicy } from './email.service';

/** The real service's answer to a sender the account may not send as. */
export const UNAUTHORIZED_FROM_EMAIL = 'Unauthorized From Email';

/** A `mailer_id` the real service gives a domain: `domain_` and a ULID. */
const REAL_DOMAIN_MAILER_ID = /^domain_[0-9A-HJKMNP-TV-Z]{26}$/i;

const forbidden = (why: string) => new AppError('forbidden', UNAUTHORIZED_FROM_EMAIL, [{ path: 'from.email', message: why }]);

/**
 * The rules of a send's `mailer_id` and sender (contract part 4):
 * - `--strict-senders`: the sender's domain must be a verified domain of the account;
 * - a domain's `mailer_id`: the sender's domain must be that domain (403 otherwise);
 * - an SMTP configuration's: the send is relayed through it for real (unless its server is the offline
 *   OAuth provider's, which does not exist: then it is captured as any send);
 * - a `domain_<ULID>` the account does not know is taken as the real service's id of a domain (an
 *   integration pointed here from production carries one; the docs' own example does), unless strict;
 * - anything else unknown to the account: 400 naming `mailer_id`.
 */
export function senderPolicy(deps: {
  strict: boolean;
  /** The domain name of the account's domain with this `mailer_id`. */
  domainOfMailer: (accountId: string, mailerId: string) => string | undefined;
  /** Whether the sender's domain is a verified domain of the account. */
  verifiedSender: (accountId: string, fromEmail: string) => boolean;
  /** The type of the account's mailer configuration with this id, and whether its server is a real one to relay through. */
  mailerOf: (accountId: string, mailerId: string) => { type: 'smtp' | 'imap'; relays: boolean } | undefined;
}): SenderPolicy {
  return {
    check(accountId, mailerId, fromEmail) {
      const fromDomain = fromEmail.slice(fromEmail.lastIndexOf('@') + 1).toLowerCase();
      if (deps.strict && !deps.verifiedSender(accountId, fromEmail)) {
        throw forbidden(`${fromDomain} is not a verified domain of this account (--strict-senders)`);
      }
      if (mailerId === '') return { relayed: false };
      const domain = deps.domainOfMailer(accountId, mailerId);
      if (domain !== undefined) {
        if (domain !== fromDomain) throw forbidden(`mailer_id ${mailerId} sends for ${domain}, not ${fromDomain}`);
        return { relayed: false };
      }
      const mailer = deps.mailerOf(accountId, mailerId);
      if (mailer?.type === 'smtp') return { relayed: mailer.relays };
      if (mailer?.type === 'imap') {
        throw new AppError('validation', 'mailer_id names an IMAP configuration; only domains and SMTP configurations send', [
          { path: 'mailer_id', message: 'names an IMAP configuration' },
        ]);
      }
      if (REAL_DOMAIN_MAILER_ID.test(mailerId) && !deps.strict) return { relayed: false };
      throw new AppError('validation', 'mailer_id names no domain or SMTP configuration of this account', [
        { path: 'mailer_id', message: 'names no domain or SMTP configuration of this account' },
      ]);
    },
  };
}
