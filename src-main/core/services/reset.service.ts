import type { ResetResult } from '../../../src-shared/schemas/emulator';
import type { EmulatorClock } from '../clock';
import type { DeliveryTargets } from '../dispatch/delivery-targets';
import type { Dispatcher } from '../dispatch/dispatcher';
import { appError } from '../error-catalogue';
import type { ResetRepo } from '../store/reset.repo';
import type { AccountsService } from './accounts.service';

/** A worker that is stopped while the store is wiped and started again afterwards. */
interface Pausable {
  stop(): void | Promise<void>;
  start(): void;
}

export interface ResetDeps {
  repo: ResetRepo;
  dispatcher: Pick<Dispatcher, 'cancelTarget' | 'targetChanged' | 'inFlightCount' | 'commitEnqueued' | 'wake'>;
  /** Suspended while a reset runs: every delivery target counts as gone, so nothing more is sent. */
  targets: Pick<DeliveryTargets, 'suspend' | 'resume'>;
  accounts: AccountsService;
  clock: EmulatorClock;
  /** Kept: the default account and the account of `--api-key`, if given. */
  keptAccountIds: () => string[];
  /** The workers that could write or send while the store is wiped: the simulator, the SMTP relay, the IMAP connector. */
  workers: Pausable[];
  /** Commits writes still queued (the write batcher), so none lands after the wipe. */
  flushWrites: () => void;
  /** Forgets what the services keep in memory of the wiped rows (filters, DKIM keys, routes, rules). */
  forgetCached: () => void;
  /** How long webhook attempts already on the wire may take to end (their time-out). */
  drainTimeoutMs: number;
  /** How often the drain is checked. */
  pollMs?: number;
}

/**
 * `POST /emulator/reset`: wipes all data for a clean test set-up. Messages, deliveries, webhooks,
 * domains, mailers (IMAP connections closed), inbound routes, templates, simulation rules,
 * suppressions and scheduled events go; the clock goes back to wall time at real speed. The default
 * account and the `--api-key` account stay (so a CI job's key keeps working); other accounts go.
 *
 * Nothing is sent afterwards: while it runs, every delivery target counts as gone, so pending and
 * claimed deliveries are cancelled without an attempt and an attempt already on the wire (which cannot
 * be unsent) ends as cancelled, never retried. The wipe waits for those attempts to be recorded.
 */
export class ResetService {
  private running: Promise<ResetResult> | undefined;

  constructor(private readonly deps: ResetDeps) {}

  /** One reset at a time: a second call while one runs gets the same answer. */
  reset(): Promise<ResetResult> {
    if (this.running === undefined) {
      // From here to the end, the dispatcher's target lookups answer "gone".
      this.deps.targets.suspend();
      this.running = this.run().finally(() => {
        this.running = undefined;
        this.deps.targets.resume();
      });
    }
    return this.running;
  }

  private async run(): Promise<ResetResult> {
    const { repo, dispatcher, workers } = this.deps;
    // The delivery targets are suspended from here (before the first await returns).
    await Promise.resolve();
    await Promise.all(workers.map((w) => w.stop()));
    try {
      for (const t of repo.activeTargets()) dispatcher.cancelTarget(t.target_kind, t.target_id);
      dispatcher.wake();
      await this.drained();
      // From here to the end of the wipe nothing else runs: no delivery can be claimed or recorded in between.
      this.deps.flushWrites();
      dispatcher.commitEnqueued();
      const targets = repo.allTargets();
      const kept = this.deps.keptAccountIds();
      const counts = repo.wipe(kept);
      for (const t of targets) dispatcher.targetChanged(t.target_kind, t.target_id);
      this.deps.accounts.forgetCached();
      this.deps.forgetCached();
      this.deps.clock.reset();
      return { ...counts, accounts_kept: kept };
    } finally {
      for (const w of workers) w.start();
      dispatcher.wake();
    }
  }

  /** Resolves once no webhook attempt is on the wire or waiting for its outcome to be recorded. */
  private async drained(): Promise<void> {
    const { repo, dispatcher } = this.deps;
    const deadline = performance.now() + this.deps.drainTimeoutMs;
    while (dispatcher.inFlightCount() > 0 || repo.sendingCount() > 0) {
      if (performance.now() > deadline) {
        throw appError('resetNotDone');
      }
      await new Promise((r) => setTimeout(r, this.deps.pollMs ?? 10));
    }
  }
}
