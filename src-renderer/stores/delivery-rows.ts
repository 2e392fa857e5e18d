import type { DeliverySummary } from '../../src-shared/schemas/dispatch';

/** A live `delivery.updated` leaves out the recipient and subject (they never change): keep the row's. */
export const merged = (old: DeliverySummary, d: DeliverySummary): DeliverySummary =>
  d.recipient === undefined || d.subject === undefined ? { ...d, recipient: d.recipient ?? old.recipient, subject: d.subject ?? old.subject } : d;

/**
 * Whether `fresh` is a later state of a delivery than `shown`: a later update, or at the same time (a
 * paused clock) more attempts, or the claim of the attempt the shown state was waiting for.
 */
export function isLater(shown: DeliverySummary, fresh: DeliverySummary): boolean {
  if (fresh.updated_at !== shown.updated_at) return fresh.updated_at > shown.updated_at;
  if (fresh.attempts !== shown.attempts) return fresh.attempts > shown.attempts;
  return fresh.status === 'sending' && shown.status === 'pending';
}

/** The rows with those of `fresh` that are later than the shown ones replaced (the same array when none is). */
export function withLaterRows(rows: DeliverySummary[], fresh: DeliverySummary[]): DeliverySummary[] {
  const byId = new Map(fresh.map((d) => [d.id, d]));
  let next = rows;
  for (let i = 0; i < rows.length && byId.size > 0; i++) {
    const d = byId.get(rows[i]!.id);
    if (!d) continue;
    byId.delete(d.id);
    if (!isLater(rows[i]!, d)) continue;
    if (next === rows) next = [...rows];
    next[i] = merged(rows[i]!, d);
  }
  return next;
}
