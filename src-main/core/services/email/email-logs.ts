import { type EmailLogEntry, type EmailLogsQuery, type EmailLogsResponse, LOGS_MAX_WINDOW_MS } from '../../../../src-shared/schemas/email';
import type { Clock } from '../../clock';
import { copyPosition, copyPositionText } from '../../cursor';
import { appError } from '../../error-catalogue';
import type { CopyPosition, MessageEventRow, MessageRow, MessagesRepo } from '../../store/messages.repo';

/** What the logs query reads: the stored copies, the emulator clock (the default window), the accounts' numbers. */
export interface EmailLogsSource {
  messages: MessagesRepo;
  clock: Clock;
  /** The account's number (the logs' `accountId`). */
  accountNumber: (accountId: string) => number;
}

/** The email logs' page token: the place of the page's last entry and the query's count, opaque to clients. */
function encodeLogsToken(last: MessageRow, total: number): string {
  return Buffer.from(`${copyPositionText({ createdMs: last.created_ms, key: last.key! })}:${total}`).toString('base64url');
}

function decodeLogsToken(token: string): { after: CopyPosition; total: number | undefined } {
  const [place = '', total] = Buffer.from(token, 'base64url').toString().split(':');
  // Checked as the other cursors are (a place this API gave out); a count that is not a number is ignored.
  const after = copyPosition(place, 'pageToken');
  return { after, total: total !== undefined && /^\d{1,12}$/.test(total) ? Number(total) : undefined };
}

/** A query date: start of that day (UTC) for a plain date, else the instant. */
const toMs = (value: string | undefined) =>
  value === undefined ? undefined : Date.parse(value.length === 10 ? `${value}T00:00:00Z` : value.replace(' ', 'T'));

/** The log entry of one copy, with the events that happened to it. */
function toLogEntry(row: MessageRow, events: MessageEventRow[], accountNumber: number): EmailLogEntry {
  const track: Record<string, string[]> = {};
  for (const e of events) {
    track[e.event] ??= [];
    track[e.event]!.push(e.timestamp);
  }
  return {
    refId: row.ref_id,
    recipientAddress: row.recipient_email,
    recipientDomain: row.recipient_domain,
    recipientType: row.recipient_type,
    fromAddress: row.from_email,
    subject: row.subject,
    status: row.status,
    campaignId: row.campaign_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at || row.created_at,
    deliveredDate: row.delivered_at ?? '',
    failedReason: row.failed_reason,
    opened: track.open !== undefined,
    clicked: track.click !== undefined,
    priority: row.priority,
    track,
    accountId: accountNumber,
    tenantId: 0,
  };
}

/**
 * The email logs: one entry per recipient, newest first, every filter an exact match, the last 7 days
 * of the emulator clock unless a created-at bound is given, an opaque page token ("" on the last page).
 */
export function queryEmailLogs(source: EmailLogsSource, accountId: string, query: EmailLogsQuery): EmailLogsResponse {
  let createdFrom = toMs(query.startCreatedAt);
  let createdTo = toMs(query.endCreatedAt);
  if (createdFrom === undefined && createdTo === undefined) {
    // The default window: the last 7 days, up to and including now.
    createdTo = source.clock.now() + 1;
    createdFrom = createdTo - LOGS_MAX_WINDOW_MS;
  } else {
    createdTo ??= (createdFrom ?? 0) + LOGS_MAX_WINDOW_MS;
    createdFrom ??= createdTo - LOGS_MAX_WINDOW_MS;
    if (createdTo - createdFrom > LOGS_MAX_WINDOW_MS) {
      throw appError('logsWindowTooLong');
    }
    if (createdTo < createdFrom) {
      throw appError('logsWindowReversed');
    }
  }
  const filter = {
    accountId,
    recipientLc: query.email?.toLowerCase(),
    domain: query.recipientDomain?.toLowerCase(),
    refId: query.refId,
    createdFrom,
    createdTo,
    status: query.status,
    fromAddress: query.fromAddress,
    failedReason: query.failedReason,
    subject: query.subject,
    campaignId: query.campaignId,
    recipientType: query.recipientType,
    deliveredFrom: toMs(query.startDeliveredDate),
    deliveredTo: toMs(query.endDeliveredDate),
  };
  const token = query.pageToken ? decodeLogsToken(query.pageToken) : undefined;
  const rows = source.messages.logs(filter, { after: token?.after, limit: query.pageSize + 1 });
  const page = rows.slice(0, query.pageSize);
  // The first page counts the matches; later pages carry that count in their token (a count of a
  // big result on every page would cost a scan of it each time).
  const totalCount = token?.total ?? source.messages.countLogs(filter);
  const events = source.messages.eventsOf(page.map((r) => r.id));
  const accountNumber = source.accountNumber(accountId);
  return {
    success: true,
    emailLogs: page.map((r) => toLogEntry(r, events.get(r.id) ?? [], accountNumber)),
    nextPageToken: rows.length > query.pageSize ? encodeLogsToken(page.at(-1)!, totalCount) : '',
    totalCount,
  };
}
