import type { Logger } from 'pino';
import type { SimulationRule } from '../../../../src-shared/schemas/email';
import type { EmulatorClock } from '../../clock';
import type { Spamd } from '../../spamd/spamd';
import type { MessageRow, MessagesRepo } from '../../store/messages.repo';
import type { SimulationRepo } from '../../store/simulation.repo';
import { planFor } from '../simulation/plan';

/** A spam event comes this long after the copy was sent at the earliest (as the simulation's do, after the delivery). */
export const SPAM_EVENT_DELAY_MS = 5_000;

export interface SpamFilterDeps {
  enabled: boolean;
  spamd: Spamd;
  messages: MessagesRepo;
  simulation: SimulationRepo;
  clock: EmulatorClock;
  /** The simulation rules in force (a copy whose plan has no delivery is not scored). */
  rules: () => readonly SimulationRule[];
  /** Wakes the simulator after a spam event was scheduled. */
  scheduled: () => void;
  logger: Logger;
}

/**
 * `--spam-filter spamassassin`: each new copy the simulation delivers is scored by SpamAssassin
 * (once per composed message); a recipient at or over the threshold gets a `spam` event, scheduled
 * as the simulation's events are, so it reaches the logs and webhooks like any other.
 */
export class SpamFilter {
  private readonly inFlight = new Set<Promise<void>>();
  private stopped = false;

  constructor(private readonly deps: SpamFilterDeps) {}

  get enabled(): boolean {
    return this.deps.enabled;
  }

  /** Starts spamd ahead of the first send, so the first score does not wait for it. */
  start(): void {
    if (!this.deps.enabled) return;
    if (!this.deps.spamd.available) {
      this.deps.logger.warn('--spam-filter spamassassin: SpamAssassin is not installed (Debian: apt-get install spamassassin spamd); sends are not scored');
      return;
    }
    this.deps.spamd.start().catch((err: Error) => this.deps.logger.warn({ err: err.message }, 'spamd did not start; sends are not scored'));
  }

  /** The copies of a send, just stored: scored in the background (the send's answer does not wait). */
  inspect(rows: readonly MessageRow[]): void {
    if (!this.deps.enabled || this.stopped || !this.deps.spamd.available) return;
    const rules = this.deps.rules();
    const byContent = new Map<string, MessageRow[]>();
    for (const row of rows) {
      if (row.status !== 'queued' || row.mailer_id) continue;
      // Only a copy the simulation delivers can land in a spam folder (not a bounce, a rejection…).
      const plan = planFor(row.recipient_email, false, rules);
      if (plan.kind !== 'events' || !plan.events.some((e) => e.event === 'delivery') || plan.events.some((e) => e.event === 'spam')) continue;
      const group = byContent.get(row.content_id + (row.patch ? `\u0000${row.id}` : '')) ?? [];
      group.push(row);
      byContent.set(row.content_id + (row.patch ? `\u0000${row.id}` : ''), group);
    }
    for (const group of byContent.values()) {
      const p = this.score(group).finally(() => this.inFlight.delete(p));
      this.inFlight.add(p);
    }
  }

  private async score(rows: MessageRow[]): Promise<void> {
    const raw = this.deps.messages.rawOf(rows[0]!);
    if (!raw) return;
    const verdict = await this.deps.spamd.check(raw);
    if (this.stopped) return;
    if (verdict.status !== 'ok') {
      this.deps.logger.warn({ reason: verdict.reason, message_id: rows[0]!.id }, 'spam filter: the message could not be scored');
      return;
    }
    if (!verdict.is_spam) return;
    try {
      const now = this.deps.clock.now();
      for (const row of rows) {
        if (!this.deps.messages.get(row.id)) continue;
        const dueAt = Math.max(row.created_ms + SPAM_EVENT_DELAY_MS, now + 1);
        this.deps.simulation.schedule({ message_id: row.id, event: 'spam', fields: '{}', due_at: dueAt });
        this.deps.logger.info(
          { message_id: row.id, recipient: row.recipient_email, score: verdict.score, threshold: verdict.threshold, rules: verdict.rules.map((r) => r.name) },
          'spam filter: SpamAssassin scored the message as spam; a spam event is scheduled',
        );
      }
      this.deps.scheduled();
    } catch (err) {
      // The store was reset or closed meanwhile: nothing to schedule for.
      this.deps.logger.warn({ err: (err as Error).message }, 'spam filter: could not schedule the spam event');
    }
  }

  /** Waits for the scores in flight (for tests and a clean stop). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  stop(): void {
    this.stopped = true;
  }
}
