import type { AttemptRecord, DeliveryDetail, DeliverySummary, EndpointStats } from '../../../src-shared/schemas/dispatch';
import { isoTimestamp } from '../clock';
import type { AttemptRow, DeliveryRow, EndpointRow } from '../store/deliveries.repo';

/**
 * A payload's recipient and subject as the list reads them from the stored JSON (deliveries.repo.ts's
 * RECIPIENT and SUBJECT), from the payload in hand; a subject the payload lacks stays null here (the
 * list reads the send's).
 */
export function payloadRecipientAndSubject(payload: unknown): { recipient: string | null; subject: string | null } {
  const p = (typeof payload === 'object' && payload !== null ? payload : {}) as { recipient?: unknown; subject?: unknown; to?: unknown };
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
  return { recipient, subject: typeof p.subject === 'string' ? p.subject : null };
}

/** Rows as the control API shows them. */
export function toDeliverySummary(row: DeliveryRow): DeliverySummary {
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

/** `body` is the delivery's payload: every attempt sends exactly that, so it is stored once. */
export function toAttemptRecord(row: AttemptRow, body: string): AttemptRecord {
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
      body,
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

export function toDeliveryDetail(row: DeliveryRow, attempts: AttemptRow[]): DeliveryDetail {
  return { ...toDeliverySummary(row), payload: JSON.parse(row.payload) as unknown, attempt_log: attempts.map((a) => toAttemptRecord(a, row.payload)) };
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
