import { randomInt } from 'node:crypto';
import type { ChaosState, ChaosTrigger, ChaosTriggers, ChaosTriggersInput } from '../../../../src-shared/schemas/mailpit';
import { appError } from '../../error-catalogue';

/** Which SMTP command a trigger answers: MAIL FROM, RCPT TO, AUTH. */
export type ChaosKind = keyof ChaosTriggers;

/** The codes a trigger answers when it names none, as Mailpit's. */
const DEFAULT_CODES: Record<ChaosKind, number> = { Sender: 451, Recipient: 451, Authentication: 535 };
const KINDS = Object.keys(DEFAULT_CODES) as ChaosKind[];

const off = (): ChaosTriggers => ({
  Sender: { ErrorCode: DEFAULT_CODES.Sender, Probability: 0 },
  Recipient: { ErrorCode: DEFAULT_CODES.Recipient, Probability: 0 },
  Authentication: { ErrorCode: DEFAULT_CODES.Authentication, Probability: 0 },
});

/**
 * Mailpit's chaos (its SMTP failure injection, for testing how an app handles refusals): with
 * `--enable-chaos`, the SMTP sink answers MAIL FROM, RCPT TO or AUTH with a trigger's code in
 * `Probability` of 100 commands. Off by default and after a reset; without the flag, nothing can turn it on.
 */
export class ChaosService {
  private triggers = off();

  /** `draw` picks 0-99 (crypto's randomInt, as Mailpit draws); a test may pass its own. */
  constructor(
    readonly enabled: boolean,
    private readonly draw: () => number = () => randomInt(100),
  ) {}

  /** Whether chaos is on and its triggers (all off, at their default codes, when it is not). */
  state(): ChaosState {
    return { enabled: this.enabled, triggers: structuredClone(this.triggers) };
  }

  /** The triggers; throws Mailpit's `Chaos is not enabled` without the flag. */
  get(): ChaosTriggers {
    if (!this.enabled) throw appError('mailpitChaosOff');
    return structuredClone(this.triggers);
  }

  /** Replaces every trigger: one left out is off with its default code, as Mailpit's PUT does. Checked whole before any changes. */
  set(input: ChaosTriggersInput): ChaosTriggers {
    if (!this.enabled) throw appError('mailpitChaosOff');
    const next = off();
    for (const kind of KINDS) {
      const given = input[kind];
      const trigger: ChaosTrigger = { ErrorCode: given?.ErrorCode || DEFAULT_CODES[kind], Probability: given?.Probability ?? 0 };
      if (trigger.ErrorCode < 400 || trigger.ErrorCode > 599) throw appError('chaosBadTrigger', { problem: 'error code must be between 400 and 599' });
      if (trigger.Probability < 0 || trigger.Probability > 100) throw appError('chaosBadTrigger', { problem: 'probability must be between 0 and 100' });
      next[kind] = trigger;
    }
    this.triggers = next;
    return this.get();
  }

  /** Turns every trigger off at its default code, as at the start: a reset's clean slate, so no test inherits another's refusals. */
  reset(): void {
    this.triggers = off();
  }

  /** The code the sink answers this command with, or null to go on as usual. */
  fire(kind: ChaosKind): number | null {
    const trigger = this.triggers[kind];
    if (!this.enabled || trigger.Probability === 0) return null;
    return this.draw() < trigger.Probability ? trigger.ErrorCode : null;
  }
}
