import { DELIVERY_BODY_LIMITS, type AttemptRecord, type DeliveryDetail, type DeliverySummary, type EndpointStats } from '../../../src-shared/schemas/dispatch';
import { AppError } from '../errors';
import type { DeliveriesRepo, DeliveryCountFilter, DeliveryFilter } from '../store/deliveries.repo';
import { detailRequestBody, toAttemptRecord, toDeliveryDetail, toDeliverySummary, toEndpointStats } from './delivery-records';
import type { DeliveryWorker } from './delivery-worker';

/**
 * The read side the control API uses: deliveries as records (delivery-records.ts), the counts the
 * clock view shows, and a manual attempt answered with its record. Every read first inserts what
 * was enqueued, so a delivery is visible as soon as its id has been handed out.
 */
export class DeliveryQueries {
  constructor(
    private readonly repo: DeliveriesRepo,
    private readonly worker: Pick<DeliveryWorker, 'insertEnqueued' | 'attemptNow'>,
  ) {}

  /** Newest first; `before` is the id of the last delivery of the previous page. */
  list(filter: DeliveryFilter): DeliverySummary[] {
    this.worker.insertEnqueued();
    return this.repo.list(filter).map(toDeliverySummary);
  }

  /** How many deliveries the list's filters match. */
  count(filter: DeliveryCountFilter): number {
    this.worker.insertEnqueued();
    return this.repo.count(filter);
  }

  /** Every target deliveries went to, with its counts and failure rate, the most recently used first. */
  endpoints(accountId?: string): EndpointStats[] {
    this.worker.insertEnqueued();
    return this.repo.endpoints(accountId).map(toEndpointStats);
  }

  /** One delivery with its payload and attempts (a large payload in part: see `toDeliveryDetail`). */
  find(id: string): DeliveryDetail | undefined {
    this.worker.insertEnqueued();
    const row = this.repo.detail(id, DELIVERY_BODY_LIMITS.payloadShownBytes);
    return row && toDeliveryDetail(row, this.repo.attempts(id));
  }

  /** A delivery's payload, whole, as the bytes of JSON stored and sent. */
  payload(id: string): Buffer | undefined {
    this.worker.insertEnqueued();
    return this.repo.payload(id);
  }

  /** When the next scheduled attempt is due, if any is pending. */
  nextDueAt(): number | null {
    this.worker.insertEnqueued();
    return this.repo.nextDueAt();
  }

  pendingCount(): number {
    this.worker.insertEnqueued();
    return this.repo.pendingCount();
  }

  /** Sends a delivery now, whatever its status, and waits for the outcome (a manual attempt). */
  async retryNow(id: string): Promise<{ delivery: DeliverySummary; attempt: AttemptRecord }> {
    this.worker.insertEnqueued();
    const row = this.repo.get(id);
    if (!row) throw new AppError('not_found', 'Delivery Not Found');
    await this.worker.attemptNow(row);
    const after = this.repo.detail(id, DELIVERY_BODY_LIMITS.payloadShownBytes)!;
    const { payload_bytes: _bytes, payload_head: _head, ...listed } = after;
    return { delivery: toDeliverySummary(listed), attempt: toAttemptRecord(this.repo.attempts(id).at(-1)!, detailRequestBody(after)) };
  }
}
