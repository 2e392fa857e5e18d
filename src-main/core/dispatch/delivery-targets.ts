import type { DeliveryRow } from '../store/deliveries.repo';

/** Where a delivery goes, read afresh at every attempt (retries follow the target's current settings). */
export interface DeliveryTarget {
  url: string;
  method: string;
  headers: Record<string, string>;
}

/** The targets of one kind (email-event webhooks, inbound routes, IMAP webhooks, ...). */
export interface DeliveryTargetSource {
  /** The target with this id as it is now; undefined once it is gone (its pending deliveries are then cancelled). */
  resolve(id: string): DeliveryTarget | undefined;
}

/** A target's key among the dispatcher's per-target state: `kind:id`. */
export const targetKey = (row: Pick<DeliveryRow, 'target_kind' | 'target_id'>): string => `${row.target_kind}:${row.target_id}`;

/**
 * Every kind of delivery target, registered where the service that owns it is built: the dispatcher
 * asks here at each attempt where a delivery goes. A kind nobody registered has no targets.
 *
 * While suspended (a reset wiping the store), every target counts as gone, so nothing more is sent:
 * due deliveries are cancelled without an attempt and an attempt on the wire ends as cancelled. A
 * closed account (one being deleted) is the same for its own deliveries only.
 */
export class DeliveryTargets {
  private readonly sources = new Map<string, DeliveryTargetSource>();
  private suspensions = 0;
  /** Accounts being deleted: how many deletions of each are under way. */
  private readonly closed = new Map<string, number>();

  /** Adds the targets of `kind`; a kind is registered once. */
  register(kind: string, source: DeliveryTargetSource): void {
    if (this.sources.has(kind)) throw new Error(`delivery targets of kind "${kind}" are registered already`);
    this.sources.set(kind, source);
  }

  /**
   * Where a delivery to `kind`/`id` of `accountId` goes now; undefined if the target is gone, its kind
   * unknown, all are suspended or its account is closed.
   */
  resolve(kind: string, id: string, accountId?: string): DeliveryTarget | undefined {
    if (this.suspensions > 0) return undefined;
    if (accountId !== undefined && this.closed.has(accountId)) return undefined;
    return this.sources.get(kind)?.resolve(id);
  }

  /** Every target counts as gone until the matching `resume`. */
  suspend(): void {
    this.suspensions++;
  }

  resume(): void {
    if (this.suspensions > 0) this.suspensions--;
  }

  /** The account's targets count as gone until the matching `reopenAccount`. */
  closeAccount(accountId: string): void {
    this.closed.set(accountId, (this.closed.get(accountId) ?? 0) + 1);
  }

  reopenAccount(accountId: string): void {
    const n = this.closed.get(accountId) ?? 0;
    if (n <= 1) this.closed.delete(accountId);
    else this.closed.set(accountId, n - 1);
  }

  get suspended(): boolean {
    return this.suspensions > 0;
  }
}
