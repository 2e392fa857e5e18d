import type { DeliveryOrigin, DeliveryRow } from '../store/deliveries.repo';

/**
 * Fresh deliveries of one target, oldest first: ids, each with its origin (shared by consecutive
 * deliveries that have it in common). About 64 bytes each, so a burst of them stays cheap to hold.
 * Takes do not copy the queue.
 */
export class FreshQueue {
  private ids: string[] = [];
  private origins: DeliveryOrigin[] = [];
  private head = 0;
  private last: DeliveryOrigin | undefined;
  private taken: DeliveryOrigin | undefined;

  get length(): number {
    return this.ids.length - this.head;
  }

  push(row: DeliveryRow): void {
    let origin = this.last;
    if (origin === undefined || origin.account_id !== row.account_id || origin.category !== row.category || origin.event !== row.event) {
      origin = this.last = { account_id: row.account_id, target_kind: row.target_kind, target_id: row.target_id, category: row.category, event: row.event };
    }
    this.ids.push(row.id);
    this.origins.push(origin);
  }

  /** The oldest id; `origin()` before the next `take` gives its origin. */
  take(): string | undefined {
    if (this.head === this.ids.length) return undefined;
    const id = this.ids[this.head]!;
    this.taken = this.origins[this.head]!;
    this.head++;
    if (this.head > 1024 && this.head * 2 > this.ids.length) {
      this.ids = this.ids.slice(this.head);
      this.origins = this.origins.slice(this.head);
      this.head = 0;
    }
    return id;
  }

  origin(): DeliveryOrigin {
    return this.taken!;
  }
}
