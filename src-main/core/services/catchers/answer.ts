import type { CatcherMode } from '../../../../src-shared/schemas/catchers';

export interface CatcherAnswer {
  /** 0 when it hangs (no answer is ever sent). */
  status: number;
  because: 'status' | 'delay' | 'hang' | 'fail_share' | 'missing_header' | 'held_limit';
  delayMs: number;
}

/** Whether an answer holds its request (and its socket) for a while: a hang or a delay. */
export const holds = (answer: CatcherAnswer): boolean => answer.status === 0 || answer.delayMs > 0;

/**
 * Whether the n-th request (from 1) falls in the share of failures: exactly when the failures due by
 * n (n × percent / 100, rounded down) grow at n, so the failures spread evenly and any run of 100
 * requests has exactly `percent` of them.
 */
export function failsAt(n: number, percent: number): boolean {
  return Math.floor((n * percent) / 100) > Math.floor(((n - 1) * percent) / 100);
}

/** How a catcher in `mode` answers its n-th request, whose headers are `headers` (names in lower case). */
export function decideAnswer(mode: CatcherMode, n: number, headers: Record<string, string>): CatcherAnswer {
  const required = mode.require_header;
  if (required && headers[required.name.toLowerCase()] !== required.value) return { status: 401, because: 'missing_header', delayMs: 0 };
  if (mode.hang) return { status: 0, because: 'hang', delayMs: 0 };
  if (failsAt(n, mode.fail_percent)) return { status: mode.fail_status, because: 'fail_share', delayMs: mode.delay_ms };
  return { status: mode.status, because: mode.delay_ms > 0 ? 'delay' : 'status', delayMs: mode.delay_ms };
}
