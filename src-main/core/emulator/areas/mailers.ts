import { ImapConnector } from '../../imap/imap-connector';
import { MailerTests } from '../../services/mailers/mailer-tests';
import { MailersService } from '../../services/mailers/mailers.service';
import { fileKeyStore, memoryKeyStore, SecretBox } from '../../services/mailers/secret-box';
import { OAuthService } from '../../services/oauth/oauth.service';
import { checkServerHost, checkUrl } from '../../services/url-check';
import { checkSmtpLogin } from '../../smtp/connection';
import { SmtpRelay } from '../../smtp/relay';
import { MailersRepo } from '../../store/mailers.repo';
import type { EventsArea } from './events';
import type { AreaFoundations } from './foundations';

/** Mailers and the protocol adapters that serve them: IMAP watches, the SMTP relay, OAuth, the mailer tests. */
export function buildMailers(f: AreaFoundations, { messagesRepo, emailEvents, log }: Pick<EventsArea, 'messagesRepo' | 'emailEvents' | 'log'>) {
  const { config, clock, live, logger, dispatcher, unitOfWork, urlPolicy, serverAddress } = f;
  const mailersRepo = new MailersRepo(f.db);
  // The key that seals mailer secrets (a snapshot with secrets carries it).
  const secretKeys = f.seams.secretKeys ?? (f.dataDir === null ? memoryKeyStore() : fileKeyStore(f.dataDir));
  const mailers = new MailersService({
    repo: mailersRepo,
    clock,
    secrets: new SecretBox(secretKeys),
    dispatcher,
    checkUrl: (url, path) => checkUrl(urlPolicy, url, path),
    checkSmtpHost: (host, path) => checkServerHost(urlPolicy, host, path),
    checkSmtpLogin: (row, credentials, address) => checkSmtpLogin(row, credentials, config.strictWebhookUrls, address),
    announce: (change) => live.emit('mailer.updated', change),
  });
  const imap = new ImapConnector({
    mailers,
    repo: mailersRepo,
    unitOfWork,
    emailEvents,
    dispatcher,
    clock,
    logger: logger.child({ component: 'imap' }),
    verifyTls: config.strictWebhookUrls,
    serverAddress,
    announce: (message) => live.emit('imap.message', message),
    maxMessageBytes: config.maxMessageBytes,
  });
  mailers.onChanged((id, row) => imap.follow(id, row));
  const relay = new SmtpRelay({
    repo: mailersRepo,
    mailers,
    messages: messagesRepo,
    unitOfWork,
    emailEvents,
    log,
    clock,
    logger: logger.child({ component: 'relay' }),
    verifyTls: config.strictWebhookUrls,
    serverAddress,
  });
  const oauth = new OAuthService({
    repo: mailersRepo,
    mailers,
    clock,
    baseUrl: () => f.publicUrl.http,
    accountName: (id) => f.accounts.get(id)?.name ?? id,
  });
  const mailerTests = new MailerTests({ mailers, smtp: relay, imap });
  return { mailersRepo, secretKeys, mailers, imap, relay, oauth, mailerTests };
}

export type MailersArea = ReturnType<typeof buildMailers>;
