import { appError } from '../../error-catalogue';
import type { SenderPolicy } from './email.service';

/** A `mailer_id` the real service gives a domain: `domain_` and a ULID. */
const REAL_DOMAIN_MAILER_ID = /^domain_[0-9A-HJKMNP-TV-Z]{26}$/i;

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
      if (deps.strict && !deps.verifiedSender(accountId, fromEmail))
        throw appError('senderDomainUnverified', { domain: fromDomain, option: '--strict-senders' });
      if (mailerId === '') return { relayed: false };
      const domain = deps.domainOfMailer(accountId, mailerId);
      if (domain !== undefined) {
        if (domain !== fromDomain) throw appError('senderNotMailersDomain', { mailerId, domain, fromDomain });
        return { relayed: false };
      }
      const mailer = deps.mailerOf(accountId, mailerId);
      if (mailer?.type === 'smtp') return { relayed: mailer.relays };
      if (mailer?.type === 'imap') {
        throw appError('mailerIdIsImap');
      }
      if (REAL_DOMAIN_MAILER_ID.test(mailerId) && !deps.strict) return { relayed: false };
      throw appError('mailerIdUnknown');
    },
  };
}
