import type { DeliveryStatus } from '../../../src-shared/schemas/dispatch';

export interface DeliveryRow {
  id: string;
  account_id: string;
  target_kind: string;
  target_id: string;
  category: string;
  event: string;
  ref_id: string | null;
  payload: string;
  target_url: string;
  status: DeliveryStatus;
  attempts: number;
  scheduled_attempts: number;
  next_attempt_at: number | null;
  last_status_code: number | null;
  last_error: string | null;
  created_ms: number;
  created_at: string;
  updated_at: string;
  /**
   * The `webhook-id` its requests carry when it is not `id`: a scenario's duplicate carries its
   * original's (the same event delivered again). Null: `id`.
   */
  webhook_id: string | null;
  /** Read from the payload by the list (`list`, `detail`), never stored: see delivery-list.ts's `RECIPIENT`, `SUBJECT`. */
  recipient?: string | null;
  subject?: string | null;
}
