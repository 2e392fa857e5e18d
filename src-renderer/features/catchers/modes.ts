import type { CatcherMode, CatcherModeInput } from '../../../src-shared/schemas/catchers';

/** The answer modes the screen offers, each a full mode (fields left out take their defaults). */
export type ModeChoice = 'ok' | 'status' | 'fail' | 'share' | 'delay' | 'hang' | 'header';

export const MODE_LABELS: Record<ModeChoice, string> = {
  ok: '200 OK',
  fail: '500 every time',
  status: 'Another status',
  share: 'A share of failures',
  delay: 'Answer after a delay',
  hang: 'Hang until the sender gives up',
  header: '401 unless a header has a value',
};

/** The choice a stored mode is shown as. */
export function choiceOf(mode: CatcherMode): ModeChoice {
  if (mode.require_header) return 'header';
  if (mode.hang) return 'hang';
  if (mode.fail_percent > 0) return 'share';
  if (mode.delay_ms > 0) return 'delay';
  if (mode.status === 200) return 'ok';
  if (mode.status === 500) return 'fail';
  return 'status';
}

export interface ModeFields {
  status: number;
  percent: number;
  delayMs: number;
  headerName: string;
  headerValue: string;
}

/** The mode a choice and its fields make. */
export function modeOf(choice: ModeChoice, f: ModeFields): CatcherModeInput {
  switch (choice) {
    case 'ok':
      return {};
    case 'fail':
      return { status: 500 };
    case 'status':
      return { status: f.status };
    case 'share':
      return { fail_percent: f.percent };
    case 'delay':
      return { delay_ms: f.delayMs };
    case 'hang':
      return { hang: true };
    case 'header':
      return { require_header: { name: f.headerName, value: f.headerValue } };
  }
}

/** A mode in a few words. */
export function describeMode(mode: CatcherMode): string {
  if (mode.require_header) return `401 unless ${mode.require_header.name} is “${mode.require_header.value}”`;
  if (mode.hang) return 'hangs until the sender gives up';
  const base = mode.fail_percent > 0 ? `${mode.fail_percent}% ${mode.fail_status}, else ${mode.status}` : `${mode.status}`;
  return mode.delay_ms > 0 ? `${base} after ${mode.delay_ms} ms` : base;
}

/** How a request was answered, in the list's words: a hang, a refusal for the bound of held requests, or the status. */
export function answeredWords(r: { answered_status: number; answered_because: string }): string {
  if (r.answered_status === 0) return 'no answer (hung)';
  if (r.answered_because === 'held_limit') return `${r.answered_status}: refused, too many held at once`;
  return String(r.answered_status);
}
