import { version as VERSION } from '../../../../package.json';
import type { AfterCommit } from '../../after-commit';
import { ChecksService } from '../../services/checks/checks.service';
import { SpamFilter } from '../../services/checks/spam-filter';
import type { EmailCommitEvents } from '../../services/email/email.service';
import { MessagesService } from '../../services/email/messages.service';
import { factsOf } from '../../services/events/message-log';
import { MailExport } from '../../services/mail-files/mail-export';
import { ChaosService } from '../../services/mailpit/chaos';
import { MailpitService } from '../../services/mailpit/mailpit.service';
import { SearchIndexer } from '../../services/search/search-indexer';
import { intakeTagging, MailIntake } from '../../smtp/mail-intake';
import { findSpamd, Spamd } from '../../spamd/spamd';
import { MailpitSummariesRepo } from '../../store/mailpit-summaries.repo';
import type { MessageRow } from '../../store/message-rows';
import { SearchIndexRepo } from '../../store/search-index.repo';
import type { EventsArea } from './events';
import type { AreaFoundations } from './foundations';
import type { MailersArea } from './mailers';
import type { Receivers } from './receivers';
import type { SendingArea } from './sending';

/**
 * The captured copies as they are read: the search indexes, the messages' detail and files, the
 * export of a search as an mbox, the checks (SpamAssassin for the Checks tab and `--spam-filter`), Mailpit's API. Each send's commit
 * (`sent`) is indexed, announced on the live list and inspected by the spam filter.
 */
export function buildMessages(
  f: AreaFoundations,
  { inbound }: Pick<Receivers, 'inbound'>,
  {
    messagesRepo,
    simulationRepo,
    simulator,
    rules,
    emailEvents,
    suppressions,
  }: Pick<EventsArea, 'messagesRepo' | 'simulationRepo' | 'simulator' | 'rules' | 'emailEvents' | 'suppressions'>,
  { mailersRepo, relay }: Pick<MailersArea, 'mailersRepo' | 'relay'>,
  { email, mailThread, flags, sendWarnings }: Pick<SendingArea, 'email' | 'mailThread' | 'flags' | 'sendWarnings'>,
  sent: AfterCommit<EmailCommitEvents>,
) {
  const { db, config, clock, live, logger, accounts } = f;
  // Mailpit's tag rules (--tag, --tags-config): each copy judged once, as it is indexed.
  const tagRules = [...config.tagRules, ...config.tagsConfig];
  const searchIndexer = new SearchIndexer(new SearchIndexRepo(db), (job) => mailThread.derive(job), {
    logger: logger.child({ component: 'search-index' }),
    onIndexed: tagRules.length > 0 ? (rowids) => flags.addByRules(rowids, tagRules) : undefined,
  });
  // How mail is taken in, by the SMTP sink, Mailpit's send and a mail import alike.
  const mailIntake = new MailIntake({
    email,
    inbound,
    tagging: intakeTagging(config),
    ruleTagsApplied: tagRules.length > 0 ? () => messages.ruleTagsApplied() : undefined,
  });
  // Stored copies are indexed after their commit, in batches.
  sent.on('message.stored', () => searchIndexer.notify());
  // SpamAssassin (spamd, a child process started on first use).
  const spamd = new Spamd({ binary: findSpamd(), threshold: config.spamThreshold, logger: logger.child({ component: 'spamd' }) });
  const spamFilter = new SpamFilter({
    enabled: config.spamFilter === 'spamassassin',
    spamd,
    messages: messagesRepo,
    simulation: simulationRepo,
    clock,
    rules: () => rules.list(),
    scheduled: () => simulator.wake(),
    logger: logger.child({ component: 'spam-filter' }),
  });
  const messages = new MessagesService({
    repo: messagesRepo,
    flags,
    relayOf: (messageId) => mailersRepo.relayOf(messageId),
    waitForIndex: (waitMs) => searchIndexer.ready(waitMs),
    fireOutcomes: (row) => emailEvents.outcomesOf(factsOf(row)),
    suppression: (accountId, address) => suppressions.entry(accountId, address),
    warnings: (refId) => sendWarnings.of(refId),
    tagRules: tagRules.length > 0,
  });
  // New copies: the UI's live list (with tag rules, once they have tagged them), then the spam filter's score.
  const announce = (rows: MessageRow[]) => {
    if (live.hasListeners('message.created')) for (const summary of messages.summaries(rows)) live.emit('message.created', summary);
  };
  sent.on('message.created', (rows) => {
    if (tagRules.length === 0) announce(rows);
    else void messages.ruleTagsApplied().then(() => announce(rows));
    spamFilter.inspect(rows);
  });
  // A search's messages as an mbox (`mailyard export`, the Messages screen's Export).
  const mailExport = new MailExport({ allMatching: (filter) => messages.allMatching(filter), raw: (id) => messages.rawIfAny(id) });
  const checks = new ChecksService({ messages, token: (token) => messagesRepo.token(token), spamd, spamFilterOn: spamFilter.enabled });
  const mailpit = new MailpitService({
    repo: messagesRepo,
    flags,
    summaries: new MailpitSummariesRepo(db),
    messages,
    checks,
    waitForIndex: (waitMs) => searchIndexer.ready(waitMs),
    version: VERSION,
    startedAt: Date.now(),
    capture: async (mail) => (await mailIntake.accept(mail)).refIds,
    defaultAccountId: () => accounts.defaultAccountId(),
    smtpMailers: (accountId) => mailersRepo.ofAccount(accountId, 'smtp'),
    release: (messageId, mailerId, to) => relay.release(messageId, mailerId, to),
  });
  // Mailpit's chaos triggers for the SMTP sink (`--enable-chaos`).
  const chaos = new ChaosService(config.enableChaos);
  return { searchIndexer, spamd, spamFilter, messages, mailExport, checks, mailpit, chaos, mailIntake };
}

export type MessagesArea = ReturnType<typeof buildMessages>;
