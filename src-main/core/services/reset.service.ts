import type { AccountDeleted, ResetResult } from '../../../src-shared/schemas/emulator';
import type { EmulatorClock } from '../clock';
import type { DeliveryTargets } from '../dispatch/delivery-targets';
import type { DeliveryWorker } from '../dispatch/delivery-worker';
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
  dispatcher: Pick<Dispatcher, 'cancelTarget' | 'targetChanged' | 'commitEnqueued'>;
  /** The delivery worker: woken after the wipe, asked whether attempts are still on the wire. */
  deliveryWorker: Pick<DeliveryWorker, 'inFlightCount' | 'wake'>;
  /** Suspended while a reset runs (an account closed while it is deleted): its delivery targets count as gone, so nothing more is sent. */
  targets: Pick<DeliveryTargets, 'suspend' | 'resume' | 'closeAccount' | 'reopenAccount'>;
  accounts: AccountsService;
  clock: EmulatorClock;
  /** Kept: the default account and the account of `--api-key`, if given. */
  keptAccountIds: () => string[];
  /** The workers that could write or send while the store is wiped: the simulator, the SMTP relay, the IMAP connector. */
  workers: Pausable[];
  /** Deletes the account's copies inside the caller's transaction, releasing what they share (the messages' own delete). */
  removeCopies: (accountId: string) => void;
  /** The scenario run under way (that uses the account, when given), if any: its data is not wiped under it. */
  runUsing: (accountId?: string) => string | undefined;
  /** Tells the UI an account is gone (deleted, or removed by a reset). */
  announceDeleted: (account: { account_id: string; name: string }) => void;
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
 * suppressions and scheduled events go; Mailpit's chaos triggers go off; the clock goes back to wall
 * time at real speed. Refused (409) while a scenario run is under way. The default account and the `--api-key` account stay (so a CI job's key keeps
 * working, with its name and signing secret; its payload format goes back to the default and a
 * rotated-out secret stops signing); other accounts go.
 *
 * `DELETE /emulator/accounts/{id}`: the same for one account's data, and the account itself.
 *
 * Nothing is sent afterwards: while it runs, every delivery target (of the account) counts as gone, so
 * pending and claimed deliveries are cancelled without an attempt and an attempt already on the wire
 * (which cannot be unsent) ends as cancelled, never retried. The wipe waits for those attempts to be
 * recorded. One wipe runs at a time.
 */
export class ResetService {
  private running: Promise<ResetResult> | undefined;
  /** The wipe under way (a reset or a deletion): the next one starts after it. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: ResetDeps) {}

  /** One reset at a time: a second call while one runs gets the same answer. */
  reset(): Promise<ResetResult> {
    this.running ??= this.exclusive(async () => {
      const run = this.deps.runUsing();
      if (run !== undefined) throw appError('resetDuringRun', { run });
      // From here to the end, the dispatcher's target lookups answer "gone".
      this.deps.targets.suspend();
      try {
        const kept = this.deps.keptAccountIds();
        const removed = this.deps.accounts.list().filter((a) => !kept.includes(a.id));
        const result = await this.quiesced(undefined, 'resetNotDone', () => {
          const counts = this.deps.repo.wipe(kept);
          this.deps.clock.reset();
          return { ...counts, accounts_kept: kept };
        });
        for (const a of removed) this.deps.announceDeleted({ account_id: a.id, name: a.name });
        return result;
      } finally {
        this.deps.targets.resume();
        this.lookUpAfresh();
      }
    }).finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /**
   * Deletes the account and everything it owns. Refused for an unknown account (404), the default
   * and `--api-key` accounts, and the account of a scenario run under way (409).
   */
  deleteAccount(accountId: string): Promise<AccountDeleted> {
    return this.exclusive(async () => {
      const account = this.deps.accounts.get(accountId);
      if (!account) throw appError('accountNotFound');
      const kept = this.deps.keptAccountIds();
      if (kept.includes(accountId)) throw appError('accountKept', { which: accountId === kept[0] ? 'default' : 'api-key' });
      const run = this.deps.runUsing(accountId);
      if (run !== undefined) throw appError('accountInUse', { run });
      this.deps.targets.closeAccount(accountId);
      try {
        const removed = await this.quiesced(accountId, 'accountDeleteNotDone', () =>
          this.deps.repo.deleteAccount(accountId, () => this.deps.removeCopies(accountId)),
        );
        const deleted = { account_id: accountId, name: account.name, removed };
        this.deps.announceDeleted({ account_id: accountId, name: account.name });
        return deleted;
      } finally {
        this.deps.targets.reopenAccount(accountId);
        this.lookUpAfresh(accountId);
      }
    });
  }

  /**
   * The dispatcher looks the targets (of the account) up again rather than remembering them as gone
   * while suspended: when the wipe did not happen (409), they are live.
   */
  private lookUpAfresh(accountId?: string): void {
    for (const t of this.deps.repo.allTargets(accountId)) this.deps.dispatcher.targetChanged(t.target_kind, t.target_id);
  }

  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /**
   * Runs `wipe` once nothing can write or send for what it removes (every account's data, or one
   * account's): the workers stopped, the deliveries' targets cancelled, the attempts on the wire
   * recorded and the queued writes committed. Then the services forget what they held of it.
   */
  private async quiesced<T>(accountId: string | undefined, notDone: 'resetNotDone' | 'accountDeleteNotDone', wipe: () => T): Promise<T> {
    const { repo, dispatcher, deliveryWorker, workers } = this.deps;
    await Promise.all(workers.map((w) => w.stop()));
    try {
      // An account's every target: one the worker remembers would otherwise be sent to without a fresh lookup.
      for (const t of accountId === undefined ? repo.activeTargets() : repo.allTargets(accountId)) dispatcher.cancelTarget(t.target_kind, t.target_id);
      deliveryWorker.wake();
      await this.drained(accountId, notDone);
      // From here to the end of the wipe nothing else runs: no delivery can be claimed or recorded in between.
      this.deps.flushWrites();
      dispatcher.commitEnqueued();
      const targets = repo.allTargets(accountId);
      const result = wipe();
      for (const t of targets) dispatcher.targetChanged(t.target_kind, t.target_id);
      this.deps.accounts.forgetCached();
      this.deps.forgetCached();
      return result;
    } finally {
      for (const w of workers) w.start();
      deliveryWorker.wake();
    }
  }

  /** Resolves once no webhook attempt (of the account, when given) is on the wire or waiting for its outcome to be recorded. */
  private async drained(accountId: string | undefined, notDone: 'resetNotDone' | 'accountDeleteNotDone'): Promise<void> {
    const { repo, deliveryWorker } = this.deps;
    const deadline = performance.now() + this.deps.drainTimeoutMs;
    // An attempt on the wire is a claimed row ('sending') until its outcome commits; the count in flight is every account's.
    const busy = () => (accountId === undefined ? deliveryWorker.inFlightCount() > 0 || repo.sendingCount() > 0 : repo.sendingCount(accountId) > 0);
    while (busy()) {
      if (performance.now() > deadline) {
        throw appError(notDone);
      }
      await new Promise((r) => setTimeout(r, this.deps.pollMs ?? 10));
    }
  }
}
