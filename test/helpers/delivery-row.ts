import type { DeliveryRow } from '../../src-main/core/store/deliveries.repo';

/** A new delivery's row as the dispatcher makes it (pending, untried), with `fields` changed. */
export function deliveryRow(id: string, fields: Partial<DeliveryRow> = {}): DeliveryRow {
  return {
    id,
    account_id: 'acc',
    target_kind: 'webhook',
    target_id: 'wh',
    category: 'EMAIL_EVENT',
    event: 'delivery',
    ref_id: null,
    payload: '{}',
    target_url: 'http://127.0.0.1/hooks',
    status: 'pending',
    attempts: 0,
    scheduled_attempts: 0,
    next_attempt_at: 0,
    last_status_code: null,
    last_error: null,
    created_ms: 0,
    created_at: '',
    updated_at: '',
    webhook_id: null,
    ...fields,
  };
}
