import { z } from 'zod';
import { EMAIL_EVENT_KINDS, type EmailEventKind } from '../events';
import { pageSizeParam, Timestamp } from './common';
import { EMAIL_STATUSES, EmailAddress, RECIPIENT_TYPES } from './email';
import { MAILPIT_MAX_TAGS, MessageTag } from './mailpit';
import { Suppression } from './suppressions';

/** One recipient's copy of a send: `id` is the copy's own key, `ref_id` the send's (shared by its copies). */
export const MessageSummary = z
  .object({
    id: z.string(),
    ref_id: z.string(),
    account_id: z.string(),
    source: z.enum(['api', 'smtp']),
    from: z.object({ email: z.string(), name: z.string() }),
    recipient: z.object({ email: z.string(), name: z.string() }),
    recipient_type: z.enum(RECIPIENT_TYPES),
    subject: z.string(),
    status: z.enum(EMAIL_STATUSES),
    campaign_id: z.string(),
    created_at: Timestamp,
    /** Why it failed, in words ("" unless it did). */
    failed_reason: z.string(),
    /** Read state, as Mailpit keeps it: a new copy is unread; opening it in the web UI or Mailpit's API reads it. */
    read: z.boolean(),
    /** Its tags (Mailpit's), in name order. */
    tags: z.array(z.string()),
    /** It has an attachment (a part that is not inline): what `has:attachment` finds; the list shows a paperclip. */
    has_attachments: z.boolean(),
  })
  .meta({ id: 'MessageSummary' });

export const SetMessageReadBody = z.strictObject({ read: z.boolean({ error: 'must be true or false' }) }).meta({ id: 'SetMessageReadBody' });
export const SetMessageTagsBody = z
  .strictObject({
    /** Exactly the tags the message keeps (none: it has none left); the same name twice, in any case, is kept once. */
    tags: z.array(MessageTag).max(MAILPIT_MAX_TAGS, `must list at most ${MAILPIT_MAX_TAGS} tags`),
  })
  .meta({ id: 'SetMessageTagsBody' });
export const MessageFlags = z.object({ id: z.string(), read: z.boolean(), tags: z.array(z.string()) }).meta({ id: 'MessageFlags' });
export type MessageFlags = z.infer<typeof MessageFlags>;
export type MessageSummary = z.infer<typeof MessageSummary>;

export const MessageAttachmentInfo = z.object({
  index: z.number().int(),
  filename: z.string(),
  content_type: z.string(),
  size: z.number().int(),
  content_id: z.string().nullable(),
  disposition: z.string(),
  /** Checksums of the decoded bytes (hex), as Mailpit gives them: compare a file without downloading it. */
  checksums: z.object({ md5: z.string(), sha1: z.string(), sha256: z.string() }),
  /** Where its bytes are (relative to the emulator's HTTP URL): `/emulator/messages/{id}/attachments/{index}`. */
  url: z.string(),
});

/** What an event of one kind, fired at a copy with no field overrides (the UI's Fire), would do to it. */
export const FireOutcome = z.object({
  /** The copy's status after the event: its status now when the kind leaves it as it is. */
  status: z.enum(EMAIL_STATUSES),
  /**
   * The copy's status is final (bounced, failed, spam, unsubscribed: no later open or click changes
   * it) and the event would change it or why it failed (the logs' failedReason).
   */
  changes_final: z.boolean(),
  /** The event would put the recipient on the account's suppression list (a no-op when it is on it). */
  suppresses: z.boolean(),
});
export type FireOutcome = z.infer<typeof FireOutcome>;

/** A FireOutcome per email event kind. */
export const FireOutcomes = z.object(Object.fromEntries(EMAIL_EVENT_KINDS.map((kind) => [kind, FireOutcome])) as Record<EmailEventKind, typeof FireOutcome>);
export type FireOutcomes = z.infer<typeof FireOutcomes>;

export const MessageDetail = MessageSummary.extend({
  /** The header lines of the message as composed or received. */
  headers: z.array(z.object({ name: z.string(), value: z.string() })),
  text: z.string().nullable(),
  html: z.string().nullable(),
  attachments: z.array(MessageAttachmentInfo),
  events: z.array(
    z.object({
      event: z.string(),
      timestamp: Timestamp,
      delivery_id: z.string().nullable(),
      /**
       * What tells the event from others of its kind: its payload's own fields (a bounce's bounce_type,
       * bounce_category and bounce_reason; an SMTP error's smtp_code and smtp_response; a click's url...).
       * Absent for an event that has none (a delivery) and for one recorded before the store kept them.
       */
      details: z.record(z.string(), z.unknown()).optional(),
    }),
  ),
  /** Size of the raw message in bytes. */
  size: z.number().int(),
  /**
   * Why the message could not be parsed as it is (over mailparser's limits, or broken beyond them), in
   * words, and how what is shown was read instead; null when it parsed. The raw source is always whole.
   */
  parse_problem: z.string().nullable(),
  /**
   * Sent through an SMTP mailer and not relayed yet: its attempts so far (each refused for now), when
   * the next one is due, and the server's last reply. Null otherwise (the outcome is then an event).
   */
  relay: z
    .object({ mailer_id: z.string(), attempts: z.number().int().nonnegative(), next_attempt_at: Timestamp, last_reply: z.string().nullable() })
    .nullable(),
  /** The recipient's entry on the account's suppression list now; null when it is not suppressed. */
  suppression: Suppression.nullable(),
  /**
   * What the real service would have refused in the send this copy is of, which Mailyard took (docs/warnings.md):
   * the send's `X-Mailyard-Warning` words, each starting with its rule's name. The same on every copy of the
   * send; empty when there was nothing (and for mail taken over SMTP).
   */
  warnings: z.array(z.string()),
  /**
   * What firing each email event kind at this copy with no field overrides would do: the rule the
   * emulator applies, so a client never keeps its own copy of it. Nothing is fired or written.
   */
  fire_outcomes: FireOutcomes,
}).meta({ id: 'MessageDetail' });
export type MessageDetail = z.infer<typeof MessageDetail>;

/**
 * Present when a search by words answered before the search index held every stored copy (it waits
 * at most 1 s for it: SEARCH_WAIT_MS): how many stored copies the index did not hold yet. They may match; ask again.
 */
export const IndexPending = z.number().int().positive().optional();

export const ListMessagesQuery = z.strictObject({
  /**
   * The search box's query: words (prefixes) and "quoted phrases" over subject, sender, recipient, text
   * and HTML body and header lines; from:, to:, subject:, is:<status>, campaign:<prefix>; case-insensitive.
   * A send's ref_id (or a copy's id) finds its copies.
   */
  q: z.string().max(320).optional(),
  status: z.enum(EMAIL_STATUSES, { error: `must be one of ${EMAIL_STATUSES.join(', ')}` }).optional(),
  /** A prefix of the campaign id (case-insensitive). */
  campaign_id: z.string().max(256).optional(),
  account_id: z.string().max(64).optional(),
  limit: pageSizeParam(500, 50),
  cursor: z.string().max(200).optional(),
  /**
   * `true`: the answer carries `total`, how many messages the filters find, counted in the same read
   * as the page (a list and its count from one answer agree; two requests may see different stores).
   */
  with_total: z.enum(['true', 'false'], { error: 'must be true or false' }).optional(),
});

export const MessagePage = z.object({
  messages: z.array(MessageSummary),
  next_cursor: z.string().nullable(),
  /**
   * What the search box's query had that was not understood (an unknown operator, a date that is not
   * one), each searched as text; and, with index_pending, that the answer may be incomplete.
   */
  warnings: z.array(z.string()).optional(),
  index_pending: IndexPending,
  /** With `with_total=true`: how many messages the filters find, on every page, counted with this page. */
  total: z.number().int().optional(),
});
/** A copy of a send, by its own key (`id` of the list; a send's copies share its `ref_id`). */
export const MessageIdParams = z.strictObject({ id: z.string().min(1, 'must not be empty').max(64, 'must be at most 64 characters') });
/** A message an IMAP configuration took from its inbox, by its ref_id. */
export const ImapMessageRefParams = z.strictObject({ ref_id: z.string().min(1, 'must not be empty').max(64, 'must be at most 64 characters') });
export const DeletedCount = z.object({ deleted: z.number().int() });

/** Recipients of one release at most. */
export const RELEASE_MAX_RECIPIENTS = 50;

/** Sends a captured message, as it was captured, to real recipients through an SMTP mailer. */
export const ReleaseMessageBody = z.strictObject({
  mailer_id: z.string({ error: 'must name an SMTP mailer' }).min(1, 'must name an SMTP mailer').max(64, 'must be at most 64 characters'),
  /** Envelope recipients; the message's own recipient when absent. Its headers are not changed. */
  to: z
    .array(EmailAddress)
    .min(1, 'must list at least one address')
    .max(RELEASE_MAX_RECIPIENTS, `must list at most ${RELEASE_MAX_RECIPIENTS} addresses`)
    .optional(),
});

export const ReleaseResult = z.object({
  /** True when the server accepted the message for at least one recipient. */
  ok: z.boolean(),
  mailer_id: z.string(),
  accepted: z.array(z.string()),
  rejected: z.array(z.string()),
  /** The server's reply: its acceptance, or the refusal (or a 421 naming why it could not be reached). */
  smtp_code: z.number().int().nullable(),
  smtp_response: z.string(),
  duration_ms: z.number().int().nonnegative(),
});
export type ReleaseResult = z.infer<typeof ReleaseResult>;

/** A wait answers after this long at most; the client asks again to wait longer. */
export const WAIT_MAX_MS = 30_000;

/** How long a wait holds the request: 0 answers at once (what matches now). */
export const waitMsParam = z
  .preprocess(
    (v) => (typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v),
    z
      .number({ error: `must be a whole number of milliseconds from 0 to ${WAIT_MAX_MS}` })
      .int()
      .min(0)
      .max(WAIT_MAX_MS, `must be at most ${WAIT_MAX_MS}`),
  )
  .default(0);

/**
 * The filter of a wait for captured messages: every field given must hold (exact, case-insensitive
 * for addresses; `subject` is a case-insensitive substring; `event`: the copy had this event).
 */
export const MessageWaitFilter = z.strictObject({
  ref_id: z.string().max(64).optional(),
  recipient: z.string().max(320).optional(),
  from: z.string().max(320).optional(),
  subject: z.string().max(998).optional(),
  status: z.enum(EMAIL_STATUSES, { error: `must be one of ${EMAIL_STATUSES.join(', ')}` }).optional(),
  event: z.string().max(64).optional(),
  source: z.enum(['api', 'smtp'], { error: 'must be api or smtp' }).optional(),
  campaign_id: z.string().max(256).optional(),
  account_id: z.string().max(64).optional(),
});
export type MessageWaitFilter = z.infer<typeof MessageWaitFilter>;

export const WaitMessagesQuery = MessageWaitFilter.extend({
  wait_ms: waitMsParam,
  /** Matches answered at most (the oldest first). */
  limit: pageSizeParam(100, 10),
});

export const WaitMessagesResult = z.object({
  /** The matching copies, oldest first (at most `limit`); empty when the wait ran out. */
  messages: z.array(MessageSummary),
  /** True when nothing matched within wait_ms. */
  timed_out: z.boolean(),
  waited_ms: z.number().int().nonnegative(),
});
