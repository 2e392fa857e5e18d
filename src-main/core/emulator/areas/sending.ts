import { Resolver } from 'node:dns/promises';
import type { AfterCommit } from '../../after-commit';
import { xTagsOf } from '../../mail/tag-rules';
import { DomainsService } from '../../services/domains/domains.service';
import { type EmailCommitEvents, EmailService } from '../../services/email/email.service';
import { senderPolicy } from '../../services/email/sender-policy';
import { TemplatesService } from '../../services/email/templates.service';
import { TrackingService } from '../../services/email/tracking.service';
import { mailWork } from '../../services/mail-thread/mail-thread';
import { OFFLINE_SMTP } from '../../services/oauth/oauth-config';
import { DomainsRepo } from '../../store/domains.repo';
import { MessageFlagsRepo } from '../../store/message-flags.repo';
import { SendWarningsRepo } from '../../store/send-warnings.repo';
import { TemplatesRepo } from '../../store/templates.repo';
import type { EventsArea } from './events';
import type { AreaFoundations } from './foundations';
import type { MailersArea } from './mailers';
import type { Receivers } from './receivers';

/**
 * Sending: domains (DKIM, the mailer_id rules), templates, the mail thread that composes, the email
 * service itself (which announces each send's commit on `sent`) and tracking.
 */
export function buildSending(
  f: AreaFoundations,
  { inboundRepo }: Pick<Receivers, 'inboundRepo'>,
  {
    messagesRepo,
    simulationRepo,
    rules,
    emailEvents,
    suppressions,
  }: Pick<EventsArea, 'messagesRepo' | 'simulationRepo' | 'rules' | 'emailEvents' | 'suppressions'>,
  { mailers, relay }: Pick<MailersArea, 'mailers' | 'relay'>,
  sent: AfterCommit<EmailCommitEvents>,
) {
  const { db, config, clock, accounts } = f;
  const domains = new DomainsService({
    repo: new DomainsRepo(db),
    unitOfWork: f.unitOfWork,
    webhooks: f.webhooksRepo,
    dispatcher: f.dispatcher,
    clock,
    mode: config.dnsVerification,
    resolver: f.seams.dnsResolver ?? new Resolver({ timeout: 3000, tries: 2 }),
    inboundRouted: (accountId, domain) => inboundRepo.domain(accountId, domain) !== undefined,
  });
  const templates = new TemplatesService({ repo: new TemplatesRepo(db), clock });
  // Composing sends and deriving the search index's text, on a thread of their own.
  const mailThread = mailWork(f.logger.child({ component: 'mail-thread' }));
  // A message's tags (Mailpit's X-Tags at intake, the UI's), written with the copy.
  const flags = new MessageFlagsRepo(db);
  // What the real service would have refused in a send, stored with it.
  const sendWarnings = new SendWarningsRepo(db);
  const email = new EmailService({
    messages: messagesRepo,
    warnings: sendWarnings,
    tags: flags,
    xTags: config.tagsDisable.xTags ? undefined : (value) => xTagsOf(value, config.tagsTitleCase),
    events: sent,
    compose: mailThread.compose,
    simulation: simulationRepo,
    suppressions,
    rules,
    clock,
    baseUrl: () => f.publicUrl.http,
    writes: f.writes,
    template: (accountId, templateId) => templates.forSend(accountId, templateId),
    accountNumber: (accountId) => accounts.numberOf(accountId),
    senders: senderPolicy({
      strict: config.strictSenders,
      domainOfMailer: (accountId, mailerId) => domains.findByMailerId(accountId, mailerId)?.domain,
      verifiedSender: (accountId, fromEmail) => domains.signingKey(accountId, fromEmail) !== undefined,
      mailerOf: (accountId, mailerId) => {
        const row = mailers.row(mailerId);
        return row?.account_id === accountId ? { type: row.config_type, relays: row.host !== OFFLINE_SMTP.host } : undefined;
      },
    }),
    dkim: (accountId, fromEmail) => domains.signingKey(accountId, fromEmail),
    relay,
  });
  const tracking = new TrackingService({ messages: messagesRepo, emailEvents, clock, geoDefault: config.geoDefault });
  return { domains, templates, mailThread, flags, sendWarnings, email, tracking };
}

export type SendingArea = ReturnType<typeof buildSending>;
