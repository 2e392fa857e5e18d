import { eventFieldsOf } from '../../../src-shared/payload-format';
import {
  type AttemptRecord,
  DELIVERY_BODY_LIMITS,
  type DeliveryDetail,
  type DeliverySummary,
  deliveryPayloadPath,
  type EndpointStats,
} from '../../../src-shared/schemas/dispatch';
import { isoTimestamp } from '../clock';
import type { AttemptRow, DetailRow, EndpointRow, ListedRow } from '../store/deliveries.repo';
import { utf8Excerpt } from './body-excerpt';

const { payloadShownBytes, requestBodyShownBytes } = DELIVERY_BODY_LIMITS;

/**
 * A payload's recipient and subject as the list reads them from the stored JSON (delivery-list.ts's
 * RECIPIENT and SUBJECT), from the payload in hand; a subject the payload lacks stays null here (the
 * list reads the send's).
 */
export function payloadRecipientAndSubject(payload: unknown): { recipient: string | null; subject: string | null } {
  const p = eventFieldsOf(payload) as { recipient?: unknown; subject?: unknown; to?: unknown };
  const r = p.recipient;
  const first = Array.isArray(p.to) ? (p.to[0] as { email?: unknown } | undefined) : undefined;
  const recipient =
    typeof r === 'object' && r !== null && typeof (r as { email?: unknown }).email === 'string'
      ? (r as { email: string }).email
      : typeof r === 'string'
        ? r
        : typeof first?.email === 'string'
          ? first.email
          : null;
  // Cut as the list cuts them (delivery-list.ts's LISTED): an address, a subject line.
  return { recipient: recipient === null ? null : recipient.slice(0, 320), subject: typeof p.subject === 'string' ? p.subject.slice(0, 998) : null };
}

/** Rows as the control API shows them. */
export function toDeliverySummary(row: ListedRow): DeliverySummary {
  return {
    id: row.id,
    account_id: row.account_id,
    category: row.category,
    event: row.event,
    ref_id: row.ref_id,
    // Read by the list's query (not on the rows the dispatcher holds): left out when not read.
    ...(row.recipient !== undefined ? { recipient: row.recipient } : {}),
    ...(row.subject !== undefined ? { subject: row.subject } : {}),
    target: { kind: row.target_kind, id: row.target_id, url: row.target_url },
    status: row.status,
    attempts: row.attempts,
    next_attempt_at: row.status === 'pending' && row.next_attempt_at !== null ? isoTimestamp(row.next_attempt_at) : null,
    last_status_code: row.last_status_code,
    last_error: row.last_error,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** What an attempt's record shows of the body it sent (the payload): see `requestBodyShown`. */
export interface RequestBodyShown {
  body: string;
  body_truncated: boolean;
  body_bytes: number;
}

/** An attempt's body as its record shows it: whole up to `payloadShownBytes`, else its first `requestBodyShownBytes`. */
export function requestBodyShown(payload: string): RequestBodyShown {
  const whole = utf8Excerpt(payload, payloadShownBytes);
  if (!whole.truncated) return { body: payload, body_truncated: false, body_bytes: whole.bytes };
  return { body: utf8Excerpt(payload, requestBodyShownBytes).text, body_truncated: true, body_bytes: whole.bytes };
}

/**
 * `payload` is the delivery's payload: every attempt sends exactly that, so it is stored once (and a
 * large one is shown in part: `requestBodyShown`).
 */
export function toAttemptRecord(row: AttemptRow, payload: string | RequestBodyShown): AttemptRecord {
  const shown = typeof payload === 'string' ? requestBodyShown(payload) : payload;
  return {
    number: row.number,
    trigger: row.trigger,
    outcome: row.outcome,
    started_at: row.started_at,
    duration_ms: row.duration_ms,
    request: {
      method: row.request_method,
      url: row.request_url,
      headers: JSON.parse(row.request_headers) as Record<string, string>,
      ...shown,
    },
    response:
      row.response_status === null
        ? null
        : {
            status: row.response_status,
            headers: JSON.parse(row.response_headers ?? '{}') as Record<string, string>,
            body: row.response_body ?? '',
            truncated: row.response_truncated === 1,
          },
    error: row.error_code === null ? null : { code: row.error_code as NonNullable<AttemptRecord['error']>['code'], message: row.error ?? '' },
  };
}

/** What the attempts of a delivery read by `DeliveriesRepo.detail` show of the payload they sent. */
export function detailRequestBody(row: DetailRow): RequestBodyShown {
  return row.payload_bytes > payloadShownBytes
    ? { body: utf8Excerpt(row.payload_head, requestBodyShownBytes).text, body_truncated: true, body_bytes: row.payload_bytes }
    : { body: row.payload_head, body_truncated: false, body_bytes: row.payload_bytes };
}

/**
 * A delivery with its payload and attempts, bounded whatever the payload's size: a payload over
 * `payloadShownBytes` is answered as its first bytes (`payload_preview`, `payload` null), and the
 * attempts show the first `requestBodyShownBytes` of it; the whole is at `payload_url`.
 */
export function toDeliveryDetail(row: DetailRow, attempts: AttemptRow[]): DeliveryDetail {
  const { payload_bytes: bytes, payload_head: head, ...listed } = row;
  const truncated = bytes > payloadShownBytes;
  const shown = detailRequestBody(row);
  return {
    ...toDeliverySummary(listed),
    payload: truncated ? null : (JSON.parse(head) as unknown),
    payload_bytes: bytes,
    payload_truncated: truncated,
    payload_preview: truncated ? utf8Excerpt(head, payloadShownBytes).text : null,
    payload_url: deliveryPayloadPath(row.id),
    webhook_id: row.webhook_id ?? row.id,
    attempt_log: attempts.map((a) => toAttemptRecord(a, shown)),
  };
}

export function toEndpointStats(row: EndpointRow): EndpointStats {
  return {
    target: { kind: row.target_kind, id: row.target_id, url: row.target_url },
    account_id: row.account_id,
    deliveries: row.deliveries,
    succeeded: row.succeeded,
    failed: row.failed,
    pending: row.pending,
    failing: row.failing,
    cancelled: row.cancelled,
    attempts: row.attempts,
    failed_attempts: row.failed_attempts,
    failure_rate: row.attempts === 0 ? null : row.failed_attempts / row.attempts,
    last_attempt_at: row.last_attempt_at,
  };
}
