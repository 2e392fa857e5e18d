import type { Logger } from 'pino';
import type { Clock } from '../clock';
import type { LiveBus } from '../live-bus';
import type { DeliveriesRepo } from '../store/deliveries.repo';
import type { StoreSpace } from '../store/store-space';
import type { DeliveryTargets } from './delivery-targets';
import type { SlotOptions } from './target-slots';

/** What the dispatcher's worker (delivery-worker.ts) is built with: its settings and the parts it uses. */

export interface WorkerOptions extends SlotOptions {
  retrySchedule: readonly number[];
  /**
   * Deliveries one commit claims at most (bounds the work of a tick; a full batch is followed by
   * another tick at once). Not a cap on attempts in flight.
   */
  claimBatch: number;
}

export interface WorkerDeps {
  repo: DeliveriesRepo;
  clock: Clock;
  live: LiveBus;
  logger: Logger;
  /** Where each delivery goes, asked at each attempt (cached until `forgetTarget`). */
  targets: Pick<DeliveryTargets, 'resolve'>;
  /** The account's Standard Webhooks secrets that sign now: none, one, or two during a rotation's grace period. */
  signingSecrets: (accountId: string) => readonly string[];
  /** Told when a commit fails for a full disk, and when one succeeds again. */
  space: Pick<StoreSpace, 'failed' | 'wrote'>;
}
