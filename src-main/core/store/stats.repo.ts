import type { Db } from './database';
import { accountNumberOf } from './message-search';

/**
 * Totals for the UI's dashboard: counts only, each one statement, of every account or of one (its id
 * as `@account`; a copy names its account by number, a delivery by id).
 */
export class StatsRepo {
  private readonly all;
  private readonly ofAccount;

  constructor(db: Db) {
    // Timestamps are ISO 8601 UTC with milliseconds: they compare as text.
    const bucketOf = `CAST((ROUND((julianday(e.timestamp) - 2440587.5) * 86400000) - @from) / @bucket AS INTEGER)`;
    type Window = { fromIso: string; toIso: string; from: number; bucket: number };
    this.all = {
      messages: db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM messages'),
      events: db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM message_events'),
      deliveries: db.prepare<[], { status: string; n: number }>('SELECT status, COUNT(*) AS n FROM deliveries GROUP BY status'),
      // Still to be delivered after at least one failed attempt: retrying (or its retry in flight).
      failing: db.prepare<[], { n: number }>("SELECT COUNT(*) AS n FROM deliveries WHERE status IN ('pending', 'sending') AND attempts > 0"),
      eventsPerBucket: db.prepare<[Window], { b: number; n: number }>(
        `SELECT ${bucketOf} AS b, COUNT(*) AS n FROM message_events e WHERE e.timestamp >= @fromIso AND e.timestamp < @toIso GROUP BY b`,
      ),
    };
    const copies = `SELECT id FROM messages WHERE account_number = ${accountNumberOf('account')}`;
    this.ofAccount = {
      messages: db.prepare<[{ account: string }], { n: number }>(`SELECT COUNT(*) AS n FROM messages WHERE account_number = ${accountNumberOf('account')}`),
      events: db.prepare<[{ account: string }], { n: number }>(`SELECT COUNT(*) AS n FROM message_events WHERE message_id IN (${copies})`),
      deliveries: db.prepare<[{ account: string }], { status: string; n: number }>(
        'SELECT status, COUNT(*) AS n FROM deliveries WHERE account_id = @account GROUP BY status',
      ),
      failing: db.prepare<[{ account: string }], { n: number }>(
        "SELECT COUNT(*) AS n FROM deliveries WHERE account_id = @account AND status IN ('pending', 'sending') AND attempts > 0",
      ),
      eventsPerBucket: db.prepare<[Window & { account: string }], { b: number; n: number }>(
        `SELECT ${bucketOf} AS b, COUNT(*) AS n FROM message_events e
          WHERE e.timestamp >= @fromIso AND e.timestamp < @toIso AND e.message_id IN (${copies}) GROUP BY b`,
      ),
    };
  }

  /** Captured copies (of the account with this id, or of all). */
  messages(accountId?: string): number {
    return (accountId === undefined ? this.all.messages.get() : this.ofAccount.messages.get({ account: accountId }))!.n;
  }

  /** Email events recorded on those copies. */
  events(accountId?: string): number {
    return (accountId === undefined ? this.all.events.get() : this.ofAccount.events.get({ account: accountId }))!.n;
  }

  /** Webhook deliveries by status. */
  deliveriesByStatus(accountId?: string): Map<string, number> {
    const rows = accountId === undefined ? this.all.deliveries.all() : this.ofAccount.deliveries.all({ account: accountId });
    return new Map(rows.map((r) => [r.status, r.n]));
  }

  /** Deliveries not yet delivered that have failed at least once (pending or sending, attempts > 0). */
  failingDeliveries(accountId?: string): number {
    return (accountId === undefined ? this.all.failing.get() : this.ofAccount.failing.get({ account: accountId }))!.n;
  }

  /** Message events per bucket from `from` (epoch ms) for `buckets` buckets of `bucketMs`. */
  eventsPerBucket(from: number, bucketMs: number, buckets: number, accountId?: string): number[] {
    const counts = new Array<number>(buckets).fill(0);
    const to = from + bucketMs * buckets;
    const window = { fromIso: new Date(from).toISOString(), toIso: new Date(to).toISOString(), from, bucket: bucketMs };
    const rows = accountId === undefined ? this.all.eventsPerBucket.all(window) : this.ofAccount.eventsPerBucket.all({ ...window, account: accountId });
    for (const row of rows) {
      if (row.b >= 0 && row.b < buckets) counts[row.b] = row.n;
    }
    return counts;
  }
}
