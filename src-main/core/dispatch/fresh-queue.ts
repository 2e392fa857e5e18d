import type { DeliveryOrigin, DeliveryRow } from '../store/deliveries.repo';

/** What consecutive fresh deliveries of a target usually have in common. */
interface Shared extends DeliveryOrigin {
  target_url: string;
}

/**
 * Fresh deliveries of one target, oldest first: each one's id, and what its row was made with but
 * its payload (the origin and URL are shared by consecutive deliveries that have them in common).
 * About 100 bytes each, so a burst of them stays cheap to hold; the payload stays in the store and
 * comes back with the claim (`untried`). Takes do not copy the queue.
 */
export class FreshQueue {
  private ids: string[] = [];
  private shared: Shared[] = [];
  private refIds: (string | null)[] = [];
  private webhookIds: (string | null)[] = [];
  private dueMs: number[] = [];
  private createdMs: number[] = [];
  private createdAt: string[] = [];
  private head = 0;
  private last: Shared | undefined;
  // The taken delivery's fields (the arrays may be compacted under them).
  private takenId = '';
  private takenShared: Shared | undefined;
  private takenRefId: string | null = null;
  private takenWebhookId: string | null = null;
  private takenDueMs = 0;
  private takenCreatedMs = 0;
  private takenCreatedAt = '';

  get length(): number {
    return this.ids.length - this.head;
  }

  /** Queues a delivery just made (pending, no attempt yet). */
  push(row: DeliveryRow): void {
    let shared = this.last;
    if (
      shared === undefined ||
      shared.account_id !== row.account_id ||
      shared.category !== row.category ||
      shared.event !== row.event ||
      shared.target_url !== row.target_url
    ) {
      shared = this.last = {
        account_id: row.account_id,
        target_kind: row.target_kind,
        target_id: row.target_id,
        category: row.category,
        event: row.event,
        target_url: row.target_url,
      };
    }
    this.ids.push(row.id);
    this.shared.push(shared);
    this.refIds.push(row.ref_id);
    this.webhookIds.push(row.webhook_id);
    this.dueMs.push(row.next_attempt_at ?? row.created_ms);
    this.createdMs.push(row.created_ms);
    this.createdAt.push(row.created_at);
  }

  /** The oldest id; `origin()` and `untried()` before the next `take` tell the rest of it. */
  take(): string | undefined {
    const i = this.head;
    if (i === this.ids.length) return undefined;
    this.takenId = this.ids[i]!;
    this.takenShared = this.shared[i]!;
    this.takenRefId = this.refIds[i]!;
    this.takenWebhookId = this.webhookIds[i]!;
    this.takenDueMs = this.dueMs[i]!;
    this.takenCreatedMs = this.createdMs[i]!;
    this.takenCreatedAt = this.createdAt[i]!;
    this.head++;
    if (this.head > 1024 && this.head * 2 > this.ids.length) {
      const from = this.head;
      this.ids = this.ids.slice(from);
      this.shared = this.shared.slice(from);
      this.refIds = this.refIds.slice(from);
      this.webhookIds = this.webhookIds.slice(from);
      this.dueMs = this.dueMs.slice(from);
      this.createdMs = this.createdMs.slice(from);
      this.createdAt = this.createdAt.slice(from);
      this.head = 0;
    }
    return this.takenId;
  }

  origin(): DeliveryOrigin {
    return this.takenShared!;
  }

  /**
   * The taken delivery's row once claimed, as it was made, for a delivery still untried (no attempt
   * since it was queued, so nothing but its status changed): `payload` is what the claim read back.
   */
  untried(payload: string, updatedAt: string): DeliveryRow {
    const s = this.takenShared!;
    return {
      id: this.takenId,
      account_id: s.account_id,
      target_kind: s.target_kind,
      target_id: s.target_id,
      category: s.category,
      event: s.event,
      ref_id: this.takenRefId,
      payload,
      target_url: s.target_url,
      status: 'sending',
      attempts: 0,
      scheduled_attempts: 0,
      next_attempt_at: this.takenDueMs,
      last_status_code: null,
      last_error: null,
      created_ms: this.takenCreatedMs,
      created_at: this.takenCreatedAt,
      updated_at: updatedAt,
      webhook_id: this.takenWebhookId,
    };
  }
}
