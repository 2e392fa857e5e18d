import type { EmulatorStats } from '../../../src-shared/schemas/stats';
import { type Clock, isoTimestamp } from '../clock';
import type { StatsRepo } from '../store/stats.repo';

const BUCKET_MS = 60_000;
const BUCKETS = 60;

export interface StatsDeps {
  repo: StatsRepo;
  clock: Clock;
}

/** The UI's dashboard strip: totals and the last hour of events, on the emulator clock, of every account or of one. */
export class StatsService {
  constructor(private readonly deps: StatsDeps) {}

  /** The figures of the account with this id (the caller checked that it exists), or of every account. */
  stats(accountId?: string): EmulatorStats {
    const { repo, clock } = this.deps;
    const byStatus = repo.deliveriesByStatus(accountId);
    const total = [...byStatus.values()].reduce((a, b) => a + b, 0);
    // The last bucket is the current minute.
    const from = (Math.floor(clock.now() / BUCKET_MS) - BUCKETS + 1) * BUCKET_MS;
    return {
      account_id: accountId ?? null,
      messages: repo.messages(accountId),
      events: repo.events(accountId),
      deliveries: {
        total,
        pending: (byStatus.get('pending') ?? 0) + (byStatus.get('sending') ?? 0),
        succeeded: byStatus.get('succeeded') ?? 0,
        failed: byStatus.get('failed') ?? 0,
        failing: repo.failingDeliveries(accountId),
      },
      timeline: { from: isoTimestamp(from), bucket_ms: BUCKET_MS, counts: repo.eventsPerBucket(from, BUCKET_MS, BUCKETS, accountId) },
    };
  }
}
