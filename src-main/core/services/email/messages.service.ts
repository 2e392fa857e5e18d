import { createHash } from 'node:crypto';
import type { MessageDetail, MessageSummary, MessageWaitFilter } from '../../../../src-shared/schemas/messages';
import { decodeCursor, paginate } from '../../cursor';
import { AppError } from '../../errors';
import { isoTimestamp } from '../../clock';
import type { RelayRow } from '../../store/mailers.repo';
import type { MessageListRow, MessageRow, MessagesRepo } from '../../store/messages.repo';
import { parseLeniently } from '../../mail/lenient-parse';
import { idQuery, parseMessageQuery } from '../../../../src-shared/search/message-query';
import { linksOpenOutside, neutraliseTracking } from './preview';

export function toSummary(row: MessageListRow): MessageSummary {
  return {
    id: row.id,
    ref_id: row.ref_id,
    account_id: row.account_id,
    source: row.source,
    from: { email: row.from_email, name: row.from_name },
    recipient: { email: row.recipient_email, name: row.recipient_name },
    recipient_type: row.recipient_type,
    subject: row.subject,
    status: row.status as MessageSummary['status'],
    campaign_id: row.campaign_id,
    created_at: row.created_at,
    failed_reason: row.failed_reason,
  };
}

/** Candidates a wait's filter reads at most, newest first, when no ref_id or recipient narrows it in the index. */
export const WAIT_CANDIDATES = 1000;

function checksums(content: Buffer | null | undefined): { md5: string; sha1: string; sha256: string } {
  const bytes = content ?? Buffer.alloc(0);
  const hex = (algorithm: string) => createHash(algorithm).update(bytes).digest('hex');
  return { md5: hex('md5'), sha1: hex('sha1'), sha256: hex('sha256') };
}

const notFound = () => new AppError('not_found', 'Message Not Found');

/** An attachment as a download: bytes, a content type, and a file name that is data, never a path. */
export interface AttachmentDownload {
  filename: string;
  contentType: string;
  content: Buffer;
}

export interface MessagesDeps {
  repo: MessagesRepo;
  /** The relay a copy sent through an SMTP mailer still waits for. */
  relayOf: (messageId: string) => RelayRow | undefined;
  /** Resolves once the search indexes hold every copy stored so far (SearchIndexer.ready). */
  searchReady: () => Promise<void>;
}

/** The captured messages, as the UI shows them: list, detail, raw source, HTML, attachments. */
export class MessagesService {
  constructor(private readonly deps: MessagesDeps) {}

  /** A search by words or addresses reads the indexes: it first waits for them to hold every stored copy. */
  private async indexed(q: string | undefined): Promise<void> {
    // An id (a copy's or a send's ref_id) is matched on the copies' columns: no index to wait for.
    if (q !== undefined && q.trim() !== '' && idQuery(q.trim()) === null) await this.deps.searchReady();
  }

  async list(query: { q?: string; status?: string; campaign_id?: string; account_id?: string; limit: number; cursor?: string }) {
    await this.indexed(query.q);
    const rows = this.deps.repo.search({
      q: query.q,
      status: query.status,
      campaignId: query.campaign_id,
      accountId: query.account_id,
      before: query.cursor === undefined ? undefined : decodeCursor(query.cursor, 'cursor'),
      limit: query.limit + 1,
    });
    const { page, next } = paginate(rows, query.limit, (r) => r.id);
    const warnings = query.q ? parseMessageQuery(query.q).warnings : [];
    return { messages: page.map(toSummary), next_cursor: next, warnings };
  }

  /** How many messages the list's filters find. */
  async count(query: { q?: string; status?: string; campaign_id?: string; account_id?: string }): Promise<number> {
    await this.indexed(query.q);
    return this.deps.repo.count({ q: query.q, status: query.status, campaignId: query.campaign_id, accountId: query.account_id });
  }

  /**
   * The copies a wait's filter finds now, oldest first, at most `limit`: ref_id and recipient narrow
   * in the store's indexes (so the cost does not grow with the store), the other fields are checked
   * on at most WAIT_CANDIDATES of the newest candidates.
   */
  async matching(filter: MessageWaitFilter, limit: number): Promise<MessageSummary[]> {
    const lc = (v: string | undefined) => v?.trim().toLowerCase();
    const recipient = lc(filter.recipient);
    const from = lc(filter.from);
    const subject = lc(filter.subject);
    const q = filter.ref_id !== undefined ? filter.ref_id : recipient ? `to:"${recipient.replace(/"/g, '')}"` : undefined;
    if (filter.ref_id === undefined) await this.indexed(q);
    const rows = this.deps.repo.search({ q, status: filter.status, campaignId: filter.campaign_id, accountId: filter.account_id, limit: WAIT_CANDIDATES });
    let found = rows.filter(
      (r) =>
        (filter.ref_id === undefined || r.ref_id === filter.ref_id) &&
        (recipient === undefined || r.recipient_email.toLowerCase() === recipient) &&
        (from === undefined || r.from_email.toLowerCase() === from) &&
        (subject === undefined || r.subject.toLowerCase().includes(subject)) &&
        (filter.source === undefined || r.source === filter.source),
    );
    if (filter.event !== undefined && found.length > 0) {
      const events = this.deps.repo.eventsOf(found.map((r) => r.id));
      found = found.filter((r) => (events.get(r.id) ?? []).some((e) => e.event === filter.event));
    }
    return found.reverse().slice(0, limit).map(toSummary);
  }

  /** The raw message (RFC 5322 bytes) as it was composed or received. */
  raw(id: string): Buffer {
    const row = this.deps.repo.get(id);
    const raw = row && this.deps.repo.rawOf(row);
    if (!raw) throw notFound();
    return raw;
  }

  async detail(id: string): Promise<MessageDetail> {
    const row = this.deps.repo.get(id);
    const raw = row && this.deps.repo.rawOf(row);
    if (!row || !raw) throw notFound();
    // Never fails: a message mailparser refuses is shown as well as it can be, with why (parse_problem).
    const parsed = await parseLeniently(raw, { keepAttachments: true });
    const events = this.deps.repo.eventsOf([id]).get(id) ?? [];
    const relay = this.deps.relayOf(id);
    return {
      ...toSummary(row),
      headers: parsed.headers,
      text: parsed.text,
      html: parsed.html,
      attachments: parsed.attachments.map((a, index) => ({
        index,
        filename: a.filename ?? `attachment-${index + 1}`,
        content_type: a.contentType,
        size: a.size,
        content_id: a.contentId ? a.contentId.replace(/^<|>$/g, '') : null,
        disposition: a.contentDisposition ?? 'attachment',
        checksums: checksums(a.content),
        url: `/emulator/messages/${encodeURIComponent(id)}/attachments/${index}`,
      })),
      parse_problem: parsed.problem,
      events: events.map((e) => ({ event: e.event, timestamp: e.timestamp, delivery_id: e.delivery_id })),
      size: raw.length,
      relay: relay ? { mailer_id: relay.mailer_id, attempts: relay.attempts, next_attempt_at: isoTimestamp(relay.next_ms), last_reply: relay.last_reply } : null,
    };
  }

  /** The HTML part as the sender wrote it, or null when the message has none. */
  async html(id: string): Promise<string | null> {
    return (await parseLeniently(this.raw(id))).html;
  }

  /**
   * The HTML part as the UI previews it: without the tracking pixel, and with each tracked link
   * pointing at its own URL, so looking at a message never counts as an open or a click.
   */
  async previewHtml(id: string): Promise<string | null> {
    const html = await this.html(id);
    return html === null ? null : linksOpenOutside(neutraliseTracking(html, (token) => this.deps.repo.token(token)));
  }

  async attachment(id: string, index: number): Promise<AttachmentDownload> {
    const parsed = await parseLeniently(this.raw(id), { keepAttachments: true });
    const a = parsed.attachments[index];
    if (!a?.content) throw new AppError('not_found', 'Attachment Not Found');
    return { filename: a.filename ?? `attachment-${index + 1}`, contentType: a.contentType, content: a.content };
  }

  delete(id: string): void {
    if (!this.deps.repo.deleteOne(id)) throw notFound();
  }

  deleteAll(): number {
    return this.deps.repo.deleteAll();
  }

  /** Deletes what the list's filters find; every message when there is no filter. Returns how many. */
  async deleteMatching(query: { q?: string; status?: string; campaign_id?: string; account_id?: string }): Promise<number> {
    await this.indexed(query.q);
    const filter = { q: query.q?.trim() || undefined, status: query.status, campaignId: query.campaign_id || undefined, accountId: query.account_id };
    if (Object.values(filter).every((v) => v === undefined)) return this.deps.repo.deleteAll();
    return this.deps.repo.deleteMatching(filter);
  }
}
