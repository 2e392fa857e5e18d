import type { EmailStatus } from '../../../src-shared/schemas/email';

// The rows of captured copies as the store reads and writes them (MessagesRepo re-exports them).

export interface MessageContentRow {
  content_id: string;
  /** The RFC 5322 message as composed or received; empty while `recipe` waits to be composed. */
  raw: Buffer;
  /** A send stored as what was asked (services/email/compose-later.ts), composed on the first read; null once composed, or when `raw` came whole. */
  recipe?: Buffer | null;
}

/** Makes the raw message of a stored recipe, the same bytes every time (composeRecipe). */
export type ComposeLater = (recipe: Buffer) => Buffer;

/** One recipient's copy of a send (API or SMTP): what the email logs list, one entry each. */
export interface MessageRow {
  /** The copy's id as the API shows it: a ULID. */
  id: string;
  /** The send's ref_id, which every copy of the send shares (what the API answers and events carry). */
  ref_id: string;
  account_id: string;
  content_id: string;
  source: 'api' | 'smtp';
  from_email: string;
  from_name: string;
  recipient_email: string;
  recipient_lc: string;
  recipient_domain: string;
  recipient_name: string;
  recipient_type: 'to' | 'cc' | 'bcc';
  subject: string;
  campaign_id: string;
  mailer_id: string;
  custom_args: string;
  status: EmailStatus;
  created_ms: number;
  created_at: string;
  delivered_ms: number | null;
  delivered_at: string | null;
  /** Why the copy failed, in words ('' unless it did). */
  failed_reason: string;
  /** The send's priority, as text. */
  priority: string;
  updated_at: string;
  /** The edits that make this copy from its send's content (see byte-patch.ts); null when it is that content. */
  patch: Buffer | null;
  /** Its raw message's length in bytes; null for a copy stored before the column (see COPY_SIZE). */
  size: number | null;
  /** 1 once read (Mailpit's read state), else 0; a new copy is unread (the column's default). */
  read?: number;
  /** The copy's key in the store (given to it when stored): the order copies were stored in. */
  key?: number;
}

/** What recording a delivery needs of a copy (MessagesRepo.statesOf). */
export type CopyStateRow = Pick<MessageRow, 'id' | 'ref_id' | 'account_id' | 'status' | 'failed_reason'>;

/** The columns of a copy the list shows (MessagesService's summary). */
export type MessageListRow = Pick<
  MessageRow,
  | 'id'
  | 'ref_id'
  | 'account_id'
  | 'source'
  | 'from_email'
  | 'from_name'
  | 'recipient_email'
  | 'recipient_name'
  | 'recipient_type'
  | 'subject'
  | 'status'
  | 'campaign_id'
  | 'created_at'
  | 'failed_reason'
  | 'content_id'
  | 'created_ms'
> &
  Pick<MessageRow, 'read'> & {
    /** The copy's rowid (its row in the search indexes). */
    rowid?: number;
  };
/**
 * Where a page of a newest-first list of copies starts: after the copy made at `createdMs` with key
 * `key` (the order of creation time, then of storing; what the email logs' indexes keep).
 */
export interface CopyPosition {
  createdMs: number;
  key: number;
}
export interface MessageEventRow {
  message_id: string;
  seq: number;
  event: string;
  timestamp: string;
  delivery_id: string | null;
  /** The payload's own fields (JSON), or null: migration 0035. */
  details: string | null;
}

/** The filters of the email logs, resolved to SQL terms. Ranges: start inclusive, end exclusive (epoch ms). */
export interface LogFilter {
  accountId: string;
  recipientLc?: string;
  domain?: string;
  refId?: string;
  createdFrom?: number;
  createdTo?: number;
  status?: string;
  fromAddress?: string;
  failedReason?: string;
  subject?: string;
  campaignId?: string;
  recipientType?: string;
  deliveredFrom?: number;
  deliveredTo?: number;
}
