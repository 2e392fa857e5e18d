import type {
  MailpitHtmlCheck,
  MailpitInfo,
  MailpitLinkCheck,
  MailpitMessage,
  MailpitMessageSummary,
  MailpitMessagesSummary,
  MailpitSendBody,
  MailpitSpamCheck,
} from '../../../../src-shared/schemas/mailpit';
import type { ReleaseResult } from '../../../../src-shared/schemas/messages';
import { appError } from '../../error-catalogue';
import { parseLeniently } from '../../mail/lenient-parse';
import type { MailpitSummariesRepo } from '../../store/mailpit-summaries.repo';
import type { MessageFlagsRepo } from '../../store/message-flags.repo';
import type { MessageListRow, MessagesRepo } from '../../store/messages.repo';
import type { ChecksService } from '../checks/checks.service';
import type { MessagesService } from '../email/messages.service';
import { DELETE_SEARCH_WAIT_MS, SEARCH_WAIT_MS } from '../email/messages.service';
import { type StoredSummary, summaryOfMessage } from '../search/stored-summary';
import { toMailpitHtmlCheck } from './html-check';
import {
  address,
  attachmentOf,
  BLANK_THUMBNAIL,
  canonicalHeaderName,
  fileNameOf,
  headerValues,
  isInline,
  listed,
  partIdOf,
  replyTo,
  unsubscribeLinks,
} from './mailpit-parts';
import { composeMailpitSend, releaseRecipients } from './mailpit-send';

export interface MailpitDeps {
  repo: MessagesRepo;
  flags: MessageFlagsRepo;
  /** The summaries the search indexer stored (the list reads no message). */
  summaries: MailpitSummariesRepo;
  messages: MessagesService;
  checks: ChecksService;
  /** Waits (at most `waitMs`) for the search indexes to hold every stored copy (SearchIndexer.ready). */
  waitForIndex: (waitMs: number) => Promise<number>;
  version: string;
  /** Wall time (ms) the emulator started at: Mailpit's uptime. */
  startedAt: number;
  /** Takes a message in as the SMTP sink does (inbound routing, then capture); answers its ref_ids. */
  capture: (mail: { accountId: string; mailFrom: string; recipients: string[]; raw: Buffer }) => Promise<string[]>;
  /** The account of mail that names none (the SMTP sink's without a login): where Mailpit's sends go. */
  defaultAccountId: () => string;
  /** The SMTP mailers of an account: Mailpit's release goes through the one there is. */
  smtpMailers: (accountId: string) => Array<{ id: string; host: string; port: number }>;
  /** Sends a stored copy for real through an SMTP mailer (the SMTP relay's release). */
  release: (messageId: string, mailerId: string, to: string[]) => Promise<ReleaseResult>;
}

export { canonicalHeaderName };

/**
 * Mailpit's API over the captured copies. A Mailpit message is one copy (one recipient of a send):
 * its ID is the copy's id, as the Messages screen and `/emulator/messages/{id}` name it.
 */
export class MailpitService {
  constructor(private readonly deps: MailpitDeps) {}

  info(): MailpitInfo {
    const tags = Object.fromEntries(this.deps.flags.tagCounts().map((t) => [t.tag, t.count]));
    return {
      Version: `mailyard-${this.deps.version}`,
      LatestVersion: '',
      Database: '',
      DatabaseSize: 0,
      Messages: this.deps.repo.count({}),
      Unread: this.deps.flags.unreadCount(),
      Tags: tags,
      RuntimeStats: {
        Uptime: Math.floor((Date.now() - this.deps.startedAt) / 1000),
        Memory: process.memoryUsage().rss,
        MessagesDeleted: 0,
        SMTPAccepted: 0,
        SMTPAcceptedSize: 0,
        SMTPRejected: 0,
        SMTPIgnored: 0,
      },
    };
  }

  tags(): string[] {
    return this.deps.flags.tagCounts().map((t) => t.tag);
  }

  /** A page of the newest copies, or of those the search finds: Mailpit's list and search answer. */
  async page(query: string | undefined, start: number, limit: number): Promise<MailpitMessagesSummary> {
    const q = query?.trim() || undefined;
    if (q !== undefined) await this.deps.waitForIndex(SEARCH_WAIT_MS);
    const rows = limit === 0 ? [] : this.deps.repo.search({ q, limit, offset: start });
    const total = this.deps.repo.count({});
    const unread = this.deps.flags.unreadCount();
    const found = q === undefined ? total : this.deps.repo.count({ q });
    const foundUnread = q === undefined ? unread : this.deps.repo.count({ q: `is:unread ${q}` });
    return {
      total,
      unread,
      count: rows.length,
      messages_count: found,
      messages_unread: foundUnread,
      start,
      tags: this.tags(),
      // A search has waited for the index already: its summaries wait no more.
      messages: await this.summaries(rows, q === undefined),
    };
  }

  /**
   * Each row's summary from what the indexer stored. A copy the indexer has not reached yet is waited
   * for (at most SEARCH_WAIT_MS, as a search waits: the indexer reads messages off the main thread;
   * once a request, so a search that has waited does not wait again);
   * one still without a summary then (stored before they were kept, or larger than the indexer reads)
   * gets it made once, here, and stored.
   */
  private async summaries(rows: MessageListRow[], waitForIndex: boolean): Promise<MailpitMessageSummary[]> {
    const tags = this.deps.flags.tagsOf(rows.map((r) => r.id));
    const keys = rows.map((r) => r.rowid!);
    let stored = this.deps.summaries.of(keys);
    if (waitForIndex && [...stored.values()].some((s) => s.summary === null)) {
      await this.deps.waitForIndex(SEARCH_WAIT_MS);
      stored = this.deps.summaries.of(keys);
    }
    const out: MailpitMessageSummary[] = [];
    for (const row of rows) {
      const key = row.rowid!;
      let { summary, size } = stored.get(key) ?? { summary: null, size: null };
      let facts: StoredSummary;
      if (summary === null || size === null) {
        const raw = this.deps.messages.raw(row.id);
        facts = await summaryOfMessage(raw);
        size = raw.length;
        this.deps.summaries.put(key, JSON.stringify(facts));
      } else facts = JSON.parse(summary) as StoredSummary;
      const recipient = { Name: row.recipient_name, Address: row.recipient_email };
      out.push({
        ID: row.id,
        MessageID: facts.MessageID,
        Read: row.read === 1,
        From: facts.From ?? { Name: row.from_name, Address: row.from_email },
        To: facts.To,
        Cc: facts.Cc,
        // A Bcc recipient is in no header: this copy is the one that tells.
        Bcc: row.recipient_type === 'bcc' ? [recipient] : [],
        ReplyTo: facts.ReplyTo,
        Subject: facts.Subject || row.subject,
        Created: row.created_at,
        Username: '',
        Tags: tags.get(row.id) ?? [],
        Size: size,
        Attachments: facts.Attachments,
        Snippet: facts.Snippet,
      });
    }
    return out;
  }

  /** `latest` to the newest copy's id (of those the query finds, when one is given); any other id as it is. */
  async resolve(id: string, query?: string): Promise<string> {
    if (id !== 'latest') return id;
    const q = query?.trim() || undefined;
    if (q !== undefined) await this.deps.waitForIndex(SEARCH_WAIT_MS);
    const newest = this.deps.repo.search({ q, limit: 1 })[0];
    if (!newest) throw appError('messageNotFound');
    return newest.id;
  }

  /** One message as Mailpit shows it; reading it marks it read, as in Mailpit. */
  async message(id: string): Promise<MailpitMessage> {
    const row = this.deps.repo.get(id);
    if (!row) throw appError('messageNotFound');
    const raw = this.deps.messages.raw(id);
    const view = await parseLeniently(raw, { keepAttachments: true });
    const from = view.from[0] ? address(view.from[0]) : null;
    const date = Date.parse(headerValues(view, 'date')[0] ?? '');
    const parts = view.attachments.map((a, i) => ({ a, summary: attachmentOf(a, i) })).filter(({ a }) => listed(a));
    const unsubscribe = headerValues(view, 'list-unsubscribe')[0] ?? '';
    this.deps.flags.setRead([id], true);
    return {
      ID: id,
      MessageID: (headerValues(view, 'message-id')[0] ?? '').replace(/^<|>$/g, ''),
      From: from,
      To: view.to.map(address),
      Cc: view.cc.map(address),
      Bcc: row.recipient_type === 'bcc' ? [{ Name: row.recipient_name, Address: row.recipient_email }] : [],
      ReplyTo: replyTo(view),
      ReturnPath: (headerValues(view, 'return-path')[0] ?? '').replace(/^<|>$/g, '') || from?.Address || '',
      Subject: view.subject,
      ListUnsubscribe: {
        Header: unsubscribe,
        Links: unsubscribeLinks(unsubscribe),
        Errors: '',
        HeaderPost: headerValues(view, 'list-unsubscribe-post')[0] ?? '',
      },
      Date: new Date(Number.isNaN(date) ? row.created_ms : date).toISOString(),
      Tags: this.deps.flags.tagsOf([id]).get(id) ?? [],
      Username: '',
      Text: view.text ?? '',
      HTML: view.html ?? '',
      Size: raw.length,
      Inline: parts.filter(({ a }) => isInline(a)).map(({ summary }) => summary),
      Attachments: parts.filter(({ a }) => !isInline(a)).map(({ summary }) => summary),
    };
  }

  /** Every header with its values (unfolded), keyed as Go writes header names. */
  async headers(id: string): Promise<Record<string, string[]>> {
    const view = await parseLeniently(this.deps.messages.raw(id));
    const out: Record<string, string[]> = {};
    for (const h of view.headers) {
      const name = canonicalHeaderName(h.name.trim());
      const values = out[name] ?? [];
      values.push(h.value.replace(/\r?\n[ \t]+/g, ' ').trim());
      out[name] = values;
    }
    return out;
  }

  async part(id: string, partId: string): Promise<{ filename: string; contentType: string; content: Buffer }> {
    const view = await parseLeniently(this.deps.messages.raw(id), { keepAttachments: true });
    const index = view.attachments.findIndex((a, i) => partIdOf(a, i) === partId);
    const a = view.attachments[index];
    if (!a?.content) throw appError('attachmentNotFound');
    return { filename: fileNameOf(a, index), contentType: a.contentType, content: a.content };
  }

  rawOf(id: string): Buffer {
    return this.deps.messages.raw(id);
  }

  async text(id: string): Promise<string> {
    return (await parseLeniently(this.deps.messages.raw(id))).text ?? '';
  }

  /** The HTML as the Messages screen previews it: no tracking pixel, tracked links to their own URLs. */
  async html(id: string): Promise<string> {
    const html = await this.deps.messages.previewHtml(id);
    if (html === null) throw appError('mailpitNoHtml');
    return html;
  }

  async setRead(body: { IDs?: string[]; Read?: boolean; Search?: string }): Promise<void> {
    const read = body.Read ?? false;
    const ids = body.IDs ?? [];
    const search = body.Search?.trim() ?? '';
    if (ids.length > 0 && search !== '') throw appError('mailpitIdsAndSearch');
    if (search !== '') {
      await this.deps.waitForIndex(SEARCH_WAIT_MS);
      this.deps.flags.setReadMatching({ q: search }, read);
    } else if (ids.length === 0) this.deps.flags.setReadAll(read);
    else this.deps.flags.setRead(ids, read);
  }

  /** Deletes the copies with these ids (ids of no copy are skipped), or every copy when none is named. */
  delete(ids: readonly string[] | undefined): void {
    if (ids === undefined || ids.length === 0) {
      this.deps.messages.deleteAll();
      return;
    }
    for (const id of ids) this.deps.repo.deleteOne(id);
  }

  async deleteSearch(query: string | undefined): Promise<void> {
    const q = query?.trim() ?? '';
    if (q === '') throw appError('mailpitNoQuery');
    await this.deps.waitForIndex(DELETE_SEARCH_WAIT_MS);
    this.deps.repo.deleteMatching({ q });
  }

  /** Gives each copy exactly these tags; ids of no copy are skipped, as Mailpit does. */
  setTags(ids: readonly string[], tags: readonly string[]): void {
    for (const id of ids) this.deps.flags.setTags(id, tags);
  }

  renameTag(from: string, to: string): void {
    this.deps.flags.renameTag(from, to);
  }

  deleteTag(tag: string): void {
    this.deps.flags.deleteTag(tag);
  }

  async spamCheck(id: string): Promise<MailpitSpamCheck> {
    const result = await this.deps.checks.spam(id);
    if (result.status !== 'ok') return { Error: result.reason, IsSpam: false, Score: 0, Rules: null };
    return {
      Error: '',
      IsSpam: result.is_spam,
      Score: result.score,
      Rules: result.rules.map((r) => ({ Name: r.name, Score: r.score, Description: r.description })),
    };
  }

  /** Each link with the problems Mailyard finds in it; never fetched, so StatusCode is 0. */
  async linkCheck(id: string): Promise<MailpitLinkCheck> {
    const checks = await this.deps.checks.checks(id);
    const links = checks.links.map((l) => {
      const errors = l.problems.filter((p) => p.level === 'error');
      return {
        URL: l.url,
        StatusCode: 0,
        Status: errors.length > 0 ? errors.map((p) => p.message).join('; ') : 'Not checked (Mailyard does not fetch links)',
        error: errors.length > 0,
      };
    });
    return { Errors: links.filter((l) => l.error).length, Links: links.map(({ error: _, ...l }) => l) };
  }

  /**
   * Mailpit's send: the message built as Mailpit builds it, taken in as the SMTP sink takes mail
   * without a login (the default account; inbound-routed recipients to their route), one copy per
   * captured recipient. Answers the copy of the first recipient (Mailpit's one message), '' when every
   * recipient was inbound-routed. Tags go on every copy as Mailpit puts them there: as the message's
   * X-Tags header, which intake reads (and `--tags-disable x-tags` does not).
   */
  async send(body: MailpitSendBody): Promise<{ ID: string }> {
    const mail = await composeMailpitSend(body);
    const refIds = await this.deps.capture({ accountId: this.deps.defaultAccountId(), ...mail });
    const copies = refIds.flatMap((refId) => this.deps.repo.ofSend(refId));
    const first = mail.recipients[0]!.toLowerCase();
    const main = copies.find((c) => c.recipient_email.toLowerCase() === first) ?? copies[0];
    return { ID: main?.id ?? '' };
  }

  /**
   * Mailpit's release: the copy, byte for byte, to `to` through its account's SMTP mailer (Mailpit has
   * one relay; an account may have several mailers, so it takes the account's only one).
   */
  async release(id: string, to: readonly string[] | undefined): Promise<void> {
    const row = this.deps.repo.get(id);
    if (!row) throw appError('messageNotFound');
    const recipients = releaseRecipients(to);
    const mailers = this.deps.smtpMailers(row.account_id);
    if (mailers.length === 0) throw appError('mailpitRelayOff');
    if (mailers.length > 1) throw appError('mailpitRelayAmbiguous', { count: mailers.length });
    const result = await this.deps.release(id, mailers[0]!.id, recipients);
    if (!result.ok) throw appError('mailpitRelayFailed', { reply: result.smtp_response });
    if (result.rejected.length > 0) throw appError('mailpitRelayFailed', { reply: `refused for ${result.rejected.join(', ')}` });
  }

  /** The relay Mailpit's web UI configuration names: the default account's only SMTP mailer, if it has one. */
  relayServer(): string | undefined {
    const mailers = this.deps.smtpMailers(this.deps.defaultAccountId());
    return mailers.length === 1 ? `${mailers[0]!.host}:${mailers[0]!.port}` : undefined;
  }

  /** The Checks tab's client compatibility in Mailpit's HTML check shape (html-check.ts). */
  async htmlCheck(id: string): Promise<MailpitHtmlCheck> {
    const checks = await this.deps.checks.checks(id);
    if (checks.html === null) throw appError('mailpitNoHtmlToCheck');
    // Loaded on first use: most tests never ask.
    const { DoIUseEmail } = await import('@jsx-email/doiuse-email');
    const clients = new DoIUseEmail({ emailClients: ['*'] }).emailClients;
    return toMailpitHtmlCheck(checks.html, checks.compatibility.findings, clients);
  }

  /** Mailpit's thumbnail of a part: the part must exist; the image is always the blank one (BLANK_THUMBNAIL). */
  async thumbnail(id: string, partId: string): Promise<{ filename: string; content: Buffer }> {
    const part = await this.part(id, partId);
    return { filename: part.filename, content: BLANK_THUMBNAIL };
  }
}
