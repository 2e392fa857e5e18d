import type { Agent } from 'undici';
import type { Clock } from '../clock';
import type { DeliveryRow } from '../store/deliveries.repo';
import { attemptAgent, attemptRequest, type HttpAttemptRequest, type HttpAttemptResult, sendAttempt } from './attempt';
import { type DeliveryTarget, targetKey } from './delivery-targets';
import { isoTimestampCache } from './iso-timestamps';
import type { CheckedResolve } from './strict-connector';

export interface SlotOptions {
  /**
   * Requests in flight to one target at most: the only cap on attempts in flight. There is no shared
   * pool of slots, so targets whose receivers hang (each holding its own slots until `timeoutMs`)
   * never delay another target's attempts, however many hang.
   */
  perTargetConcurrency: number;
  timeoutMs: number;
  /** How much of a response body is kept. */
  responseBodyLimit: number;
  /** Verify receivers' TLS certificates (strict mode); off by default for self-signed local receivers. */
  verifyTls: boolean;
  /**
   * Strict mode: the addresses a receiver's host may be connected to, checked at every connection
   * (a refusal fails the attempt before any connection). Absent: connect to whatever the host is.
   */
  resolve?: CheckedResolve;
  userAgent: string;
}

/** What an attempt sent and what came back, when it started. */
export type SentAttempt = (request: HttpAttemptRequest, startedAt: string, result: HttpAttemptResult) => Promise<void>;

/**
 * Attempts on the wire, each in a slot of its target (`kind:id`): a target has
 * `perTargetConcurrency` slots and none is shared, so a target whose receiver hangs holds only its
 * own. One undici agent with no per-origin cap sends them all.
 */
export class TargetSlots {
  private readonly agent: Agent;
  /** By delivery id: each resolves once the attempt's outcome is committed. */
  private readonly inFlight = new Map<string, Promise<void>>();
  /** Slots in use per target. */
  private readonly used = new Map<string, number>();
  /** Parsed target URLs, for the attempts. */
  private readonly urls = new Map<string, URL>();
  /** Set while attempts still on the wire are being cut short (`drain`). */
  private aborting = false;
  private readonly isoAt = isoTimestampCache();

  constructor(
    private readonly options: SlotOptions,
    private readonly clock: Clock,
    /** The account's Standard Webhooks secrets that sign now (none when it does not sign). */
    private readonly signingSecrets: (accountId: string) => readonly string[],
  ) {
    // The per-target slots are the only limit on attempts in flight.
    this.agent = attemptAgent(options);
  }

  /** Whether the target of `row` has a free slot. */
  hasFree(row: DeliveryRow): boolean {
    return (this.used.get(targetKey(row)) ?? 0) < this.options.perTargetConcurrency;
  }

  /** Slots in use per target, as a copy. */
  usedPerTarget(): Map<string, number> {
    return new Map(this.used);
  }

  /** Attempts on the wire right now. */
  get inFlightCount(): number {
    return this.inFlight.size;
  }

  /**
   * Sends one attempt of `row` to `target` in a slot of its target, frees the slot when the answer
   * is in, then hands the outcome to `sent`; resolves when the promise `sent` returns does (its
   * outcome committed). The slot is taken even when the target has none free (a manual attempt).
   */
  send(row: DeliveryRow, target: DeliveryTarget, sent: SentAttempt): Promise<void> {
    const key = targetKey(row);
    this.used.set(key, (this.used.get(key) ?? 0) + 1);
    const request = this.requestFor(row, target);
    const startedAt = this.isoAt(this.clock.now());
    const done = sendAttempt(request, {
      agent: this.agent,
      timeoutMs: this.options.timeoutMs,
      responseBodyLimit: this.options.responseBodyLimit,
      stopping: () => this.aborting,
      urls: this.urls,
    }).then((result) => {
      const left = (this.used.get(key) ?? 1) - 1;
      if (left > 0) this.used.set(key, left);
      else this.used.delete(key);
      this.inFlight.delete(row.id);
      return sent(request, startedAt, result);
    });
    this.inFlight.set(row.id, done);
    return done;
  }

  /** The request an attempt of `row` sends to `target` now: signed with the account's secrets at this moment. */
  requestFor(row: Pick<DeliveryRow, 'id' | 'account_id' | 'payload' | 'webhook_id'>, target: DeliveryTarget): HttpAttemptRequest {
    return attemptRequest(row, target, this.options.userAgent, this.signingSecrets(row.account_id));
  }

  /**
   * Gives the attempts in flight `graceMs` to end, then aborts those still on the wire (recorded as
   * interrupted) and closes the connections. Resolves once every outcome is committed.
   */
  async drain(graceMs: number): Promise<void> {
    const pending = [...this.inFlight.values()];
    if (pending.length > 0) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const graceOver = new Promise<void>((r) => (timer = setTimeout(r, graceMs)));
      await Promise.race([Promise.allSettled(pending), graceOver]);
      clearTimeout(timer);
    }
    this.aborting = true;
    const left = [...this.inFlight.values()];
    await this.agent.destroy();
    await Promise.allSettled(left);
  }
}
