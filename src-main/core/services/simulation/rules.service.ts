import type { SimulationRule } from '../../../../src-shared/schemas/email';
import type { Clock } from '../../clock';
import { appError } from '../../error-catalogue';
import { AppError } from '../../errors';
import type { SimulationRepo } from '../../store/simulation.repo';
import type { EmailEventsService } from '../events/email-events.service';

export interface SimulationRulesDeps {
  simulation: SimulationRepo;
  /** Builds a sample payload of each rule's events, to refuse fields that cannot make one. */
  emailEvents: Pick<EmailEventsService, 'buildPayload'>;
  clock: Clock;
}

/** The simulation rules (pattern to events), tried before the simulator addresses: kept in memory, replaced whole. */
export class SimulationRules {
  /** Read once, and again after each replacement. */
  private cached: SimulationRule[] | undefined;

  constructor(private readonly deps: SimulationRulesDeps) {}

  /** The rules in the order they are tried (read on every send: kept in memory). */
  list(): SimulationRule[] {
    this.cached ??= this.deps.simulation.rules().map((r) => ({ pattern: r.pattern, events: JSON.parse(r.events) as SimulationRule['events'] }));
    return this.cached;
  }

  /** Replaces the rules; each rule's event fields must make valid payloads (checked with a sample). */
  replace(rules: SimulationRule[]): SimulationRule[] {
    const now = this.deps.clock.now();
    for (const [i, rule] of rules.entries()) {
      for (const [j, e] of rule.events.entries()) {
        try {
          this.deps.emailEvents.buildPayload(e.event, undefined, e.fields ?? {}, now);
        } catch (err) {
          if (!(err instanceof AppError)) throw err;
          const errors = (err.errors ?? []).map((f) => ({ ...f, path: `rules.${i}.events.${j}.${f.path}` }));
          throw appError('invalidFields', { problem: `rules.${i}.events.${j}.${err.message}`, errors });
        }
      }
    }
    this.deps.simulation.replaceRules(rules.map((r) => ({ pattern: r.pattern, events: JSON.stringify(r.events) })));
    this.cached = undefined;
    return this.list();
  }

  /** Forgets what is kept in memory (the store was wiped). */
  forgetCached(): void {
    this.cached = undefined;
  }
}
