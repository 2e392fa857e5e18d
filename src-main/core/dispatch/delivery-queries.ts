import { type AttemptRecord, DELIVERY_BODY_LIMITS, type DeliveryDetail, type DeliverySummary, type EndpointStats } from '../../../src-shared/schemas/dispatch';
import type { DeliveriesRepo, DeliveryCountFilter, DeliveryFilter } from '../store/deliveries.repo';
import { detailRequestBody, toAttemptRecord, toDeliveryDetail, toDeliverySummary, toEndpointStats } from './delivery-records';

/**
 * The read side the control API uses: deliveries as records (delivery-records.ts) and the counts the
 * clock view shows. It only reads: a delivery is in the store before any request can ask for it (a
 * unit of work commits its deliveries with it; one enqueued outside any is inserted at the end of the
 * synchronous run that made it, before any I/O).
 */
export class DeliveryQueries {
  constructor(private readonly repo: DeliveriesRepo) {}

  /** Newest first; `before` is the id of the last delivery of the previous page. */
  list(filter: DeliveryFilter): DeliverySummary[] {
    return this.repo.list(filter).map(toDeliverySummary);
  }

  /** How many deliveries the list's filters match. */
  count(filter: DeliveryCountFilter): number {
    return this.repo.count(filter);
  }

  /** Every target deliveries went to, with its counts and failure rate, the most recently used first. */
  endpoints(accountId?: string): EndpointStats[] {
    return this.repo.endpoints(accountId).map(toEndpointStats);
  }

  /** One delivery with its payload and attempts (a large payload in part: see `toDeliveryDetail`). */
  find(id: string): DeliveryDetail | undefined {
    const row = this.repo.detail(id, DELIVERY_BODY_LIMITS.payloadShownBytes);
    return row && toDeliveryDetail(row, this.repo.attempts(id));
  }

  /** A delivery's payload, whole, as the bytes of JSON stored and sent. */
  payload(id: string): Buffer | undefined {
    return this.repo.payload(id);
  }

  /** When the next scheduled attempt is due, if any is pending. */
  nextDueAt(): number | null {
    return this.repo.nextDueAt();
  }

  pendingCount(): number {
    return this.repo.pendingCount();
  }

  /** A delivery after a manual attempt: its summary and that attempt's record. */
  afterAttempt(id: string): { delivery: DeliverySummary; attempt: AttemptRecord } {
    const after = this.repo.detail(id, DELIVERY_BODY_LIMITS.payloadShownBytes)!;
    const { payload_bytes: _bytes, payload_head: _head, ...listed } = after;
    return { delivery: toDeliverySummary(listed), attempt: toAttemptRecord(this.repo.attempts(id).at(-1)!, detailRequestBody(after)) };
  }
}
