import { createHash } from 'node:crypto';
import { setImmediate } from 'node:timers/promises';
import type { FireOutcomes, MessageDetail, MessageFlags, MessageSummary, MessageWaitFilter } from '../../../../src-shared/schemas/messages';
import type { Suppression } from '../../../../src-shared/schemas/suppressions';
import { idQuery, parseMessageQuery } from '../../../../src-shared/search/message-query';
import { isoTimestamp } from '../../clock';
import { copyPositionText, decodeCopyCursor, paginate } from '../../cursor';
import { appError } from '../../error-catalogue';
import { parseLeniently } from '../../mail/lenient-parse';
import type { RelayRow } from '../../store/mailers.repo';
import type { MessageFlagsRepo } from '../../store/message-flags.repo';
import type { CopyPosition, MessageListRow, MessageRow, MessagesRepo } from '../../store/messages.repo';
import { contentHasAttachments } from './content-attachments';
import { linksOpenOutside, neutraliseTracking } from './preview';

const pendingOf = (pending: number): IndexState => (pending > 0 ? { index_pending: pending } : {});

/** A copy as the lists show it; `tags` are its tags (a new copy has none). */
function toSummary(row: MessageListRow, tags: string[], hasAttachments: boolean): MessageSummary {
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
    read: row.read === 1,
    tags,
    has_attachments: hasAttachments,
  };
}

/** Candidates a wait's filter reads at most, newest first, after its ref_id, recipient, status, campaign and account. */
/**
 * A search by words waits at most this long for the index to hold every copy stored before it, then
 * answers with what is indexed and says how many copies were not yet (under steady intake the index
 * may never be wholly caught up: a search must not inherit its lag).
 */
export const SEARCH_WAIT_MS = 1_000;

/**
 * With tag rules, a sender's answer and a wait's copies come once the rules have judged every copy
 * stored before: a send of 1,000 recipients whose To line names them all takes the index seconds, and
 * a search's bound (SEARCH_WAIT_MS) answered it with no tags. Past this, the answer goes, and the
 * tags follow as the index takes the copies in.
 */
export const TAG_RULES_WAIT_MS = 30_000;

/** A delete by a search waits longer for the index: it should leave no match behind. */
export const DELETE_SEARCH_WAIT_MS = 10_000;

export const WAIT_CANDIDATES = 1000;

/** Copies an export reads in one query. */
const EXPORT_PAGE = 1000;

/** The warning of a search answered before the index held every stored copy (the list's `warnings`). */
export const indexPendingWarning = (pending: number) =>
  `The search index is catching up: ${pending} stored message${pending === 1 ? ' is' : 's are'} not searchable by words yet, so this answer may be incomplete`;

function checksums(content: Buffer | null | undefined): { md5: string; sha1: string; sha256: string } {
  const bytes = content ?? Buffer.alloc(0);
  const hex = (algorithm: string) => createHash(algorithm).update(bytes).digest('hex');
  return { md5: hex('md5'), sha1: hex('sha1'), sha256: hex('sha256') };
}

/** An attachment as a download: bytes, a content type, and a file name that is data, never a path. */
export interface AttachmentDownload {
  filename: string;
  contentType: string;
  content: Buffer;
}

export interface MessagesDeps {
  repo: MessagesRepo;
  /** Read state and tags (Mailpit's), set from the Messages screen too. */
  flags: MessageFlagsRepo;
  /** The relay a copy sent through an SMTP mailer still waits for. */
  relayOf: (messageId: string) => RelayRow | undefined;
  /**
   * Waits (at most `waitMs`) until the search indexes hold every copy stored so far; answers how many
   * copies they did not hold yet when it stopped waiting, 0 when none (SearchIndexer.ready).
   */
  waitForIndex: (waitMs: number) => Promise<number>;
  /** What firing each event kind at the copy would do (EmailEventsService.outcomesOf): the detail answers the rule, the UI keeps no copy. */
  fireOutcomes: (row: MessageRow) => FireOutcomes;
  /** The address's entry on the account's suppression list now, or null. */
  suppression: (accountId: string, email: string) => Suppression | null;
  /** What the real service would have refused in the send (its stored X-Mailyard-Warning words), none when nothing. */
  warnings: (refId: string) => string[];
  /** Tag rules are set (`--tag`): a copy's rule tags come as the index takes it in, which a wait's answer waits for. */
  tagRules?: boolean;
}

/** A search's answer may lack copies the index did not hold yet: how many there were, when any. */
type IndexState = { index_pending?: number };

/** The captured messages, as the UI shows them: list, detail, raw source, HTML, attachments. */
export class MessagesService {
  constructor(private readonly deps: MessagesDeps) {}

  /**
   * Only a search by words or addresses reads the indexes: it first waits for them to hold every
   * stored copy, at most `waitMs`, and answers how many they did not hold yet (0: none).
   */
  private async indexed(q: string | undefined, waitMs = SEARCH_WAIT_MS): Promise<number> {
    // An id (a copy's or a send's ref_id) is matched on the copies' columns: no index to wait for.
    if (q === undefined || q.trim() === '' || idQuery(q.trim()) !== null) return 0;
    return this.deps.waitForIndex(waitMs);
  }

  async list(query: { q?: string; status?: string; campaign_id?: string; account_id?: string; limit: number; cursor?: string; with_total?: 'true' | 'false' }) {
    const pending = await this.indexed(query.q);
    const filter = { q: query.q, status: query.status, campaignId: query.campaign_id, accountId: query.account_id };
    const rows = this.deps.repo.search({
      ...filter,
      after: query.cursor === undefined ? undefined : decodeCopyCursor(query.cursor, 'cursor'),
      limit: query.limit + 1,
    });
    // Counted right after the page, in the same turn of the event loop: no write comes between them.
    const total = query.with_total === 'true' ? { total: this.deps.repo.count(filter) } : {};
    const { page, next } = paginate(rows, query.limit, (r) => copyPositionText({ createdMs: r.created_ms, key: r.rowid! }));
    const warnings = query.q ? parseMessageQuery(query.q).warnings : [];
    if (pending > 0) warnings.push(indexPendingWarning(pending));
    return { messages: this.summaries(page), next_cursor: next, warnings, ...pendingOf(pending), ...total };
  }

  /** How many messages the list's filters find (with words, as far as the index holds them: see list). */
  async count(query: { q?: string; status?: string; campaign_id?: string; account_id?: string }): Promise<{ count: number } & IndexState> {
    const pending = await this.indexed(query.q);
    const count = this.deps.repo.count({ q: query.q, status: query.status, campaignId: query.campaign_id, accountId: query.account_id });
    return { count, ...pendingOf(pending) };
  }

  /**
   * The copies a wait's filter finds now, oldest first, at most `limit`. It reads the copies' own
   * rows, never the search index, so a copy is found the moment its send's 200 (or its 250) is out,
   * however far the index lags. ref_id and recipient narrow in the store's indexes (so the cost does
   * not grow with the store); from, subject, source and event are checked on at most
   * WAIT_CANDIDATES of the newest candidates.
   */
  matching(filter: MessageWaitFilter, limit: number): MessageSummary[] {
    const lc = (v: string | undefined) => v?.trim().toLowerCase();
    const recipient = lc(filter.recipient);
    const from = lc(filter.from);
    const subject = lc(filter.subject);
    const rows = this.deps.repo.search({
      refId: filter.ref_id,
      recipientLc: recipient,
      status: filter.status,
      campaignId: filter.campaign_id,
      accountId: filter.account_id,
      limit: WAIT_CANDIDATES,
    });
    let found = rows.filter(
      (r) =>
        (from === undefined || r.from_email.toLowerCase() === from) &&
        (subject === undefined || r.subject.toLowerCase().includes(subject)) &&
        (filter.source === undefined || r.source === filter.source),
    );
    if (filter.event !== undefined && found.length > 0) {
      const events = this.deps.repo.eventsOf(found.map((r) => r.id));
      found = found.filter((r) => (events.get(r.id) ?? []).some((e) => e.event === filter.event));
    }
    return this.summaries(found.reverse().slice(0, limit));
  }

  /** With tag rules: resolves once every copy stored so far has been judged by them (at most TAG_RULES_WAIT_MS). */
  async ruleTagsApplied(): Promise<void> {
    if (this.deps.tagRules) await this.deps.waitForIndex(TAG_RULES_WAIT_MS);
  }

  /**
   * A wait's copies with their rule tags: a wait finds a copy the moment it is stored, and with tag
   * rules its tags come as the index takes it in (at most TAG_RULES_WAIT_MS): its tags are read again then.
   */
  async withRuleTags(found: MessageSummary[]): Promise<MessageSummary[]> {
    if (!this.deps.tagRules || found.length === 0) return found;
    await this.ruleTagsApplied();
    const tags = this.deps.flags.tagsOf(found.map((m) => m.id));
    return found.map((m) => ({ ...m, tags: tags.get(m.id) ?? [] }));
  }

  /** Copies as the lists (and the live stream) show them. */
  summaries(rows: readonly MessageListRow[]): MessageSummary[] {
    const tags = this.deps.flags.tagsOf(rows.map((r) => r.id));
    const attached = this.withAttachments(rows);
    return rows.map((r) => toSummary(r, tags.get(r.id) ?? [], attached.has(r.id)));
  }

  /**
   * The ids of these copies that have an attachment, as has:attachment finds them: the word index says
   * for the copies it holds; a copy it does not hold yet (just stored: a live one) has its send's
   * content read for attachment parts (once per send: its copies share them).
   */
  private withAttachments(rows: readonly MessageListRow[]): Set<string> {
    const indexed = rows.flatMap((r) => (r.rowid === undefined ? [] : [r.rowid]));
    const { attached, pending } = this.deps.repo.attachmentsOf(indexed);
    const ofContent = new Map<string, boolean>();
    const out = new Set<string>();
    for (const r of rows) {
      if (r.rowid !== undefined && !pending.has(r.rowid)) {
        if (attached.has(r.rowid)) out.add(r.id);
        continue;
      }
      let has = ofContent.get(r.content_id);
      if (has === undefined) {
        const content = this.deps.repo.content(r.content_id);
        has = content !== undefined && contentHasAttachments(content);
        ofContent.set(r.content_id, has);
      }
      if (has) out.add(r.id);
    }
    return out;
  }

  /** Marks one copy read or unread (the Messages screen opening it, or its button). */
  setRead(id: string, read: boolean): MessageFlags {
    if (!this.deps.repo.get(id)) throw appError('messageNotFound');
    this.deps.flags.setRead([id], read);
    return this.flagsOf(id);
  }

  /** Gives one copy exactly these tags (the same name in another case counts once). */
  setTags(id: string, tags: readonly string[]): MessageFlags {
    if (!this.deps.flags.setTags(id, tags)) throw appError('messageNotFound');
    return this.flagsOf(id);
  }

  private flagsOf(id: string): MessageFlags {
    return { id, read: this.deps.repo.get(id)?.read === 1, tags: this.deps.flags.tagsOf([id]).get(id) ?? [] };
  }

  /** The raw message (RFC 5322 bytes) as it was composed or received. */
  raw(id: string): Buffer {
    const raw = this.rawIfAny(id);
    if (!raw) throw appError('messageNotFound');
    return raw;
  }

  async detail(id: string): Promise<MessageDetail> {
    const row = this.deps.repo.get(id);
    const raw = row && this.deps.repo.rawOf(row);
    if (!row || !raw) throw appError('messageNotFound');
    // Never fails: a message mailparser refuses is shown as well as it can be, with why (parse_problem).
    const parsed = await parseLeniently(raw, { keepAttachments: true });
    const events = this.deps.repo.eventsOf([id]).get(id) ?? [];
    const relay = this.deps.relayOf(id);
    return {
      ...this.summaries([row])[0]!,
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
      events: events.map((e) => ({
        event: e.event,
        timestamp: e.timestamp,
        delivery_id: e.delivery_id,
        ...(e.details === null ? {} : { details: JSON.parse(e.details) as Record<string, unknown> }),
      })),
      size: raw.length,
      relay: relay
        ? { mailer_id: relay.mailer_id, attempts: relay.attempts, next_attempt_at: isoTimestamp(relay.next_ms), last_reply: relay.last_reply }
        : null,
      suppression: this.deps.suppression(row.account_id, row.recipient_email),
      warnings: this.deps.warnings(row.ref_id),
      fire_outcomes: this.deps.fireOutcomes(row),
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
    if (!a?.content) throw appError('attachmentNotFound');
    return { filename: a.filename ?? `attachment-${index + 1}`, contentType: a.contentType, content: a.content };
  }

  delete(id: string): void {
    if (!this.deps.repo.deleteOne(id)) throw appError('messageNotFound');
  }

  deleteAll(): number {
    return this.deps.repo.deleteAll();
  }

  /**
   * Every copy the list's filters find, oldest first (an export: a search by words first waits for the
   * index as a delete does, so it leaves out none stored before it), read a page at a time with the
   * event loop turning between pages.
   */
  async allMatching(query: { q?: string; status?: string; campaign_id?: string; account_id?: string }): Promise<MessageListRow[]> {
    await this.indexed(query.q, DELETE_SEARCH_WAIT_MS);
    const filter = { q: query.q?.trim() || undefined, status: query.status, campaignId: query.campaign_id || undefined, accountId: query.account_id };
    const found: MessageListRow[] = [];
    for (let after: CopyPosition | undefined; ; await setImmediate()) {
      const page = this.deps.repo.search({ ...filter, after, limit: EXPORT_PAGE });
      found.push(...page);
      const last = page.at(-1);
      if (page.length < EXPORT_PAGE || last === undefined) break;
      after = { createdMs: last.created_ms, key: last.rowid! };
    }
    return found.reverse();
  }

  /** A copy's raw message, or undefined when it is gone (deleted or pruned since it was found). */
  rawIfAny(id: string): Buffer | undefined {
    const row = this.deps.repo.get(id);
    return row && this.deps.repo.rawOf(row);
  }

  /** Deletes what the list's filters find; every message when there is no filter. Returns how many. */
  async deleteMatching(query: { q?: string; status?: string; campaign_id?: string; account_id?: string }): Promise<number> {
    await this.indexed(query.q, DELETE_SEARCH_WAIT_MS);
    const filter = { q: query.q?.trim() || undefined, status: query.status, campaignId: query.campaign_id || undefined, accountId: query.account_id };
    if (Object.values(filter).every((v) => v === undefined)) return this.deps.repo.deleteAll();
    return this.deps.repo.deleteMatching(filter);
  }
}
