import type { ParsedMail } from 'mailparser';
import { monotonicFactory } from 'ulid';
import { withThousands } from '../../../src-shared/format';
import type { ImapMessagePayload } from '../../../src-shared/schemas/mailers';
import { isoTimestamp } from '../clock';
import { mailContentOf } from '../mail/parsed-mail';
import { toImapMessageSummary } from '../services/mailers/mailer-records';
import { IMAP_WEBHOOK_TARGET } from '../services/mailers/mailers.service';
import type { ImapMessageRow, MailerRow } from '../store/mailers.repo';
import { type DsnReport, readDsn } from './dsn';
import { type HeaderContent, headerContent } from './header-content';
import type { InboxWatchDeps } from './imap-deps';

export const MAILBOX = 'INBOX';

/** One message taken from the inbox: its source (or only its header block) and why it is not whole. */
export interface TakenMessage {
  uidValidity: number;
  uid: number;
  /** The whole source, or only its header block when it was over the size limit. */
  raw: Buffer;
  /** Over the size limit: its size on the server (the body was not fetched). */
  oversize?: { size: number; limit: number };
}

const bytes = (n: number) => `${withThousands(n)} bytes`;

/**
 * Stores what an IMAP watch takes, posts it to the configuration's webhook and turns a DSN about a
 * Mailyard message into that message's bounce. Never refuses a message: one that mailparser cannot
 * parse is kept as it came with the parse error, carried by what its header block says; one over the
 * size limit is kept as its header block with its size. Either way the watch moves past it.
 */
export class ImapMessageStore {
  private readonly newRefId = monotonicFactory();

  constructor(private readonly deps: InboxWatchDeps) {}

  async store(row: MailerRow, message: TakenMessage, closed: () => boolean): Promise<void> {
    const { repo, unitOfWork, emailEvents, dispatcher, clock, mailers } = this.deps;
    const { raw, uid, uidValidity, oversize } = message;
    let parsed: ParsedMail | undefined;
    let problem: string | null = null;
    if (oversize) {
      problem = `over the size limit: ${bytes(oversize.size)} on the server, ${bytes(oversize.limit)} allowed; only its header block was taken`;
    } else {
      try {
        const { simpleParser } = await import('mailparser');
        parsed = await simpleParser(raw, { skipImageLinks: true, skipTextToHtml: true, skipTextLinks: true });
      } catch (err) {
        const reason = `${(err as Error).message ?? String(err)}${(err as { code?: string }).code ? ` (${(err as { code?: string }).code})` : ''}`;
        problem = `mailparser could not parse it: ${reason}; kept as it came, only its header block is read`;
        this.deps.logger.info({ mailerId: row.id, uid, err }, 'imap message not parsed; stored raw');
      }
    }
    const content: HeaderContent = parsed
      ? { ...mailContentOf(parsed), messageId: parsed.messageId ?? '', date: parsed.date ? parsed.date.toISOString() : null }
      : headerContent(raw);
    const now = clock.now();
    const timestamp = isoTimestamp(now);
    const refId = this.newRefId(now);
    const dsn = parsed ? readDsn(parsed, raw) : undefined;
    const { bounce, bouncedCopy } = dsn ? this.matchBounce(row, dsn) : { bounce: null, bouncedCopy: undefined };
    const { messageId, date, ...mail } = content;
    const payload: ImapMessagePayload = {
      event: 'imap_message',
      timestamp,
      ref_id: refId,
      mailer_id: row.id,
      mailbox: MAILBOX,
      uid,
      message_id: messageId,
      date,
      ...mail,
      bounce,
      problem,
    };
    const current = mailers.row(row.id);
    if (!current || closed()) return;
    const stored: ImapMessageRow = {
      ref_id: refId,
      mailer_id: row.id,
      account_id: current.account_id,
      uidvalidity: uidValidity,
      uid,
      message_id: payload.message_id,
      from_email: payload.from.email,
      subject: payload.subject,
      raw,
      bounce_ref_id: bounce?.ref_id ?? null,
      delivery_id: null,
      created_ms: now,
      created_at: timestamp,
      problem,
      server_size: oversize?.size ?? null,
    };
    unitOfWork.run(() => {
      const webhook = current.webhook === null ? null : (JSON.parse(current.webhook) as { url: string });
      const deliveryId = webhook
        ? dispatcher.enqueue({
            accountId: current.account_id,
            target: { kind: IMAP_WEBHOOK_TARGET, id: row.id, url: webhook.url },
            category: 'IMAP',
            event: 'imap_message',
            refId,
            payload,
          })
        : null;
      stored.delivery_id = deliveryId;
      repo.insertImapMessage(stored);
      if (bouncedCopy !== undefined && dsn) {
        emailEvents.record(bouncedCopy, 'bounce', { bounce_type: dsn.bounceType, bounce_category: dsn.bounceCategory, bounce_reason: dsn.diagnostic }, now);
      }
      dispatcher.commitEnqueued();
    });
    const { server_size: serverSize, raw: _raw, ...listed } = stored;
    this.deps.announce?.(toImapMessageSummary({ ...listed, size: serverSize ?? raw.length }));
  }

  /** The bounced message: one of this account's, the recipient the DSN names among those of its Message-ID. */
  private matchBounce(row: MailerRow, dsn: DsnReport): { bounce: ImapMessagePayload['bounce']; bouncedCopy: string | undefined } {
    // A Message-ID names a copy (the first recipient's, when the recipients share the composed message).
    for (const candidate of dsn.copyIds) {
      const sameSend = this.deps.repo.sameSend(candidate).filter((m) => m.account_id === row.account_id);
      const match = sameSend.find((m) => m.recipient_lc === dsn.recipient.toLowerCase()) ?? sameSend.find((m) => m.id === candidate);
      if (match) {
        return {
          bounce: { ref_id: match.ref_id, recipient: dsn.recipient, bounce_type: dsn.bounceType, status: dsn.status, diagnostic: dsn.diagnostic },
          bouncedCopy: match.id,
        };
      }
    }
    return { bounce: null, bouncedCopy: undefined };
  }
}
