import type { EmulatorStats } from '../../../src-shared/schemas/stats';
import { isoTimestamp, type Clock } from '../clock';
import type { StatsRepo } from '../store/stats.repo';

const BUCKET_MS = 60_000;
const BUCKETS = 60;

export interface StatsDeps {
  repo: StatsRepo;
  clock: Clock;
}

/** The UI's dashboard strip: totals and the last hour of events, on the emulator clock. */
export class StatsService {
  constructor(private readonly deps: StatsDeps) {}

  stats(): EmulatorStats {
    const byStatus = this.deps.repo.deliveriesByStatus();
    const total = [...byStatus.values()].reduce((a, b) => a + b, 0);
    // The last bucket is the current minute.
    const from = (Math.floor(this.deps.clock.now() / BUCKET_MS) - BUCKETS + 1) * BUCKET_MS;
    return {
      messages: this.deps.repo.messages(),
      events: this.deps.repo.events(),
      deliveries: {
        total,
        pending: (byStatus.get('pending') ?? 0) + (byStatus.get('sending') ?? 0),
        succeeded: byStatus.get('succeeded') ?? 0,
        failed: byStatus.get('failed') ?? 0,
        failing: this.deps.repo.failingDeliveries(),
      },
      timeline: { from: isoTimestamp(from), bucket_ms: BUCKET_MS, counts: this.deps.repo.eventsPerBucket(from, BUCKET_MS, BUCKETS) },
    };
  }
}
