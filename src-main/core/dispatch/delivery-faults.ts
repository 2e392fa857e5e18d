import { z } from 'zod';
import type { Clock } from '../clock';
import { appError } from '../error-catalogue';
import { fieldErrors } from '../zod-errors';
import type { HttpAttemptResult } from './attempt';
import type { EnqueueInput } from './delivery-outbox';

/**
 * What a real provider does to webhook deliveries, set per account for a scenario run (docs/webhooks.md,
 * "Delivery faults (scenarios)"). Off by default; kept in memory only (a run sets them).
 */
export interface DeliveryFaults {
  /** Share 0..1 of events delivered twice (same event id and payload, a second delivery). */
  duplicates?: number;
  /** Share of messages whose events are delivered out of order: an event is held back up to windowMs (emulated). */
  reorder?: { share: number; windowMs: number };
  /** Extra delay before a delivery's first attempt (emulated ms). */
  delay?: { distribution: 'fixed' | 'uniform' | 'exponential'; ms?: number; minMs?: number; maxMs?: number; meanMs?: number };
  /** Emulator-clock epoch ms: attempts in a window fail without connecting and retry on the normal schedule. */
  outages?: Array<{ fromMs: number; toMs: number }>;
  /**
   * Seeded source (default Math.random), told which delivery each draw is for and what it decides, so a
   * source may key its draws by the delivery and give each the same in a rerun, whatever the order.
   */
  random?: (input: EnqueueInput, purpose: FaultDraw) => number;
}

/** What a draw of the faults decides for a delivery. */
export type FaultDraw = 'reorder' | 'duplicate' | 'delay' | 'duplicate-delay';

export interface FaultStats {
  duplicates: number;
  reordered: number;
  delayed: number;
  outageRefusals: number;
}

const share = z.number().min(0).max(1);
const ms = z.number().int().nonnegative();
const FaultsSchema = z
  .object({
    duplicates: share.optional(),
    reorder: z.object({ share, windowMs: ms }).optional(),
    delay: z
      .discriminatedUnion('distribution', [
        z.object({ distribution: z.literal('fixed'), ms }),
        z
          .object({ distribution: z.literal('uniform'), minMs: ms, maxMs: ms })
          .refine((d) => d.minMs <= d.maxMs, { message: 'minMs must not be over maxMs', path: ['maxMs'] }),
        z.object({ distribution: z.literal('exponential'), meanMs: ms }),
      ])
      .optional(),
    outages: z
      .array(z.object({ fromMs: ms, toMs: ms }).refine((o) => o.fromMs <= o.toMs, { message: 'toMs must not be before fromMs', path: ['toMs'] }))
      .optional(),
    random: z.custom<DeliveryFaults['random']>((f) => typeof f === 'function', { message: 'random must be a function returning 0..1' }).optional(),
  })
  .strict();

/** The failed attempt an outage records: no connection is made, as for a receiver that refuses one. */
export const OUTAGE_REFUSAL: HttpAttemptResult = {
  durationMs: 0,
  response: null,
  error: { code: 'refused', message: 'receiver unreachable: scenario outage (no connection was made)' },
  succeeded: false,
};

/** Messages whose reorder decision is remembered at most, per account (the oldest are forgotten first). */
const REMEMBERED_MESSAGES = 20_000;

interface MessageState {
  /** Whether this message's events are delivered out of order. */
  chosen: boolean;
  /** When its held-back event is due (emulated ms). */
  heldUntil: number;
  counted: boolean;
}

interface AccountFaults {
  faults: DeliveryFaults;
  random: NonNullable<DeliveryFaults['random']>;
  messages: Map<string, MessageState>;
}

/**
 * The faults of each account and their counts. The dispatcher asks `plan` at each enqueue and
 * `refuses` at each attempt, only while some account has faults (`active`): off, they cost a size check.
 */
export class DeliveryFaultsRegistry {
  private readonly accounts = new Map<string, AccountFaults>();
  private readonly counts = new Map<string, FaultStats>();

  constructor(private readonly clock: Clock) {}

  /** Whether any account has faults set. */
  get active(): boolean {
    return this.accounts.size > 0;
  }

  /** Sets an account's faults (checked: a bad value throws a validation error naming the field), or clears them with null. */
  set(accountId: string, faults: DeliveryFaults | null): void {
    if (faults === null) {
      this.accounts.delete(accountId);
      return;
    }
    const parsed = FaultsSchema.safeParse(faults);
    if (!parsed.success) throw appError('invalidDeliveryFaults', { errors: fieldErrors(parsed.error.issues) });
    this.accounts.set(accountId, { faults, random: faults.random ?? Math.random, messages: new Map() });
    if (!this.counts.has(accountId)) this.counts.set(accountId, { duplicates: 0, reordered: 0, delayed: 0, outageRefusals: 0 });
  }

  /** What the faults did to an account's deliveries since this process started (kept after they are cleared). */
  stats(accountId: string): FaultStats {
    return { ...(this.counts.get(accountId) ?? { duplicates: 0, reordered: 0, delayed: 0, outageRefusals: 0 }) };
  }

  /**
   * The delays (emulated ms before the first attempt) of the deliveries an event becomes: one, or two
   * for a duplicate; undefined when the account has no faults.
   */
  plan(input: EnqueueInput): number[] | undefined {
    const account = this.accounts.get(input.accountId);
    if (!account) return undefined;
    const stats = this.counts.get(input.accountId)!;
    const { faults, random } = account;
    const held = this.holdBack(account, stats, input);
    const delays = [held + this.delay(faults, () => random(input, 'delay'), stats)];
    if (faults.duplicates !== undefined && random(input, 'duplicate') < faults.duplicates) {
      stats.duplicates++;
      delays.push(held + this.delay(faults, () => random(input, 'duplicate-delay'), stats));
    }
    return delays;
  }

  /** Whether an attempt now of a delivery of the account falls in an outage window (counted). */
  refuses(accountId: string): boolean {
    const outages = this.accounts.get(accountId)?.faults.outages;
    if (!outages) return false;
    const now = this.clock.now();
    if (!outages.some((o) => now >= o.fromMs && now < o.toMs)) return false;
    this.counts.get(accountId)!.outageRefusals++;
    return true;
  }

  private delay(faults: DeliveryFaults, random: () => number, stats: FaultStats): number {
    const d = faults.delay;
    if (!d) return 0;
    let ms: number;
    if (d.distribution === 'fixed') ms = d.ms ?? 0;
    else if (d.distribution === 'uniform') ms = (d.minMs ?? 0) + random() * ((d.maxMs ?? 0) - (d.minMs ?? 0));
    else ms = -(d.meanMs ?? 0) * Math.log(1 - random());
    ms = Math.round(ms);
    if (ms > 0) stats.delayed++;
    return ms;
  }

  /**
   * Out of order: for a chosen message, its first event is held back `windowMs`, so its later events
   * within the window reach the receiver first. A message is its ref_id and recipient.
   */
  private holdBack(account: AccountFaults, stats: FaultStats, input: EnqueueInput): number {
    const reorder = account.faults.reorder;
    if (!reorder || input.refId === null || reorder.windowMs === 0) return 0;
    const recipient = (input.payload as { recipient?: { email?: unknown } } | null)?.recipient?.email;
    const key = typeof recipient === 'string' ? `${input.refId}\n${recipient}` : input.refId;
    const now = this.clock.now();
    const state = account.messages.get(key);
    if (state === undefined) {
      const chosen = account.random(input, 'reorder') < reorder.share;
      if (account.messages.size >= REMEMBERED_MESSAGES) account.messages.delete(account.messages.keys().next().value!);
      account.messages.set(key, { chosen, heldUntil: chosen ? now + reorder.windowMs : 0, counted: false });
      return chosen ? reorder.windowMs : 0;
    }
    // A later event of a chosen message overtakes the held-back one.
    if (state.chosen && !state.counted && now < state.heldUntil) {
      state.counted = true;
      stats.reordered++;
    }
    return 0;
  }
}
