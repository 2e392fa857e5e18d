import type { EmailService } from '../services/email/email.service';
import type { InboundRoute } from '../services/inbound/inbound-posts';
import type { InboundRefusal, InboundService } from '../services/inbound/inbound.service';
import type { MailAddress } from '../mail/parsed-mail';
import { readMessageFacts } from './parse-message';
import type { AcceptedMail, IntakeResult } from './smtp-sink';

/** The header address matching an envelope recipient, case-insensitively. */
function findAddress(list: MailAddress[], email: string): MailAddress | undefined {
  const lc = email.toLowerCase();
  return list.find((a) => a.email.toLowerCase() === lc);
}

export interface MailIntakeDeps {
  email: EmailService;
  inbound: InboundService;
}

/**
 * What happens to a message the SMTP sink accepted: recipients at an inbound-routed domain go to
 * inbound routing (posted, or refused by the inbound guide's rules); every other recipient is
 * captured and goes through the simulation, exactly as an API send. A recipient is `to` or `cc` when
 * the headers name it so, else `bcc`.
 */
export class MailIntake {
  constructor(private readonly deps: MailIntakeDeps) {}

  async accept(mail: AcceptedMail): Promise<IntakeResult> {
    const routed: Array<{ email: string; route: InboundRoute }> = [];
    const captured: string[] = [];
    for (const email of mail.recipients) {
      const route = this.deps.inbound.routeFor(mail.accountId, email);
      if (route) routed.push({ email, route });
      else captured.push(email);
    }
    const refIds: string[] = [];
    if (captured.length > 0) {
      const facts = readMessageFacts(mail.raw);
      const refId = await this.deps.email.acceptSmtp(mail.accountId, {
        raw: mail.raw,
        from: facts.from ?? { email: mail.mailFrom, name: '' },
        subject: facts.subject,
        campaignId: facts.campaignId,
        customArgs: facts.customArgs,
        recipients: captured.map((email) => {
          const to = findAddress(facts.to, email);
          const cc = to ? undefined : findAddress(facts.cc, email);
          return { email, name: (to ?? cc)?.name ?? '', type: to ? 'to' : cc ? 'cc' : 'bcc' };
        }),
      });
      refIds.push(refId);
    }
    let refused: InboundRefusal[] = [];
    if (routed.length > 0) {
      const outcome = await this.deps.inbound.deliver(mail.raw, routed, 'smtp');
      refIds.push(...outcome.posted.map((r) => r.refId));
      refused = outcome.refused;
    }
    return { refIds, refused };
  }
}
