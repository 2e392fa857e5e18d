import type { Db } from './database';

/** Totals for the UI's dashboard: counts only, each one statement. */
export class StatsRepo {
  private readonly stmts;

  constructor(db: Db) {
    this.stmts = {
      messages: db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM messages'),
      events: db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM message_events'),
      deliveries: db.prepare<[], { status: string; n: number }>('SELECT status, COUNT(*) AS n FROM deliveries GROUP BY status'),
      // Still to be delivered after at least one failed attempt: retrying (or its retry in flight).
      failing: db.prepare<[], { n: number }>("SELECT COUNT(*) AS n FROM deliveries WHERE status IN ('pending', 'sending') AND attempts > 0"),
      // Timestamps are ISO 8601 UTC with milliseconds: they compare as text.
      eventsPerBucket: db.prepare<[{ fromIso: string; toIso: string; from: number; bucket: number }], { b: number; n: number }>(
        `SELECT CAST((ROUND((julianday(timestamp) - 2440587.5) * 86400000) - @from) / @bucket AS INTEGER) AS b, COUNT(*) AS n
           FROM message_events WHERE timestamp >= @fromIso AND timestamp < @toIso GROUP BY b`,
      ),
    };
  }

  messages(): number {
    return this.stmts.messages.get()!.n;
  }

  events(): number {
    return this.stmts.events.get()!.n;
  }

  deliveriesByStatus(): Map<string, number> {
    return new Map(this.stmts.deliveries.all().map((r) => [r.status, r.n]));
  }

  /** Deliveries not yet delivered that have failed at least once (pending or sending, attempts > 0). */
  failingDeliveries(): number {
    return this.stmts.failing.get()!.n;
  }

  /** Message events per bucket from `from` (epoch ms) for `buckets` buckets of `bucketMs`. */
  eventsPerBucket(from: number, bucketMs: number, buckets: number): number[] {
    const counts = new Array<number>(buckets).fill(0);
    const to = from + bucketMs * buckets;
    for (const row of this.stmts.eventsPerBucket.all({ fromIso: new Date(from).toISOString(), toIso: new Date(to).toISOString(), from, bucket: bucketMs })) {
      if (row.b >= 0 && row.b < buckets) counts[row.b] = row.n;
    }
    return counts;
  }
}
