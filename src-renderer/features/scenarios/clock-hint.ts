import { DEFAULT_SCENARIO_DURATION_MS, parseDuration } from '../../../src-shared/scenario/format';

/**
 * The duration and clock speed scenario text gives (YAML or JSON), for the note before a run on how
 * far it moves the emulator clock: a hint read without parsing the file (the emulator parses it); what
 * it cannot read is taken as the format's default (10 minutes, real time).
 */
export function clockHint(text: string): { durationMs: number; speed: number } {
  const duration = /(?:^|[{,\s])"?duration"?\s*:\s*"?([^"\s,#}]+)/m.exec(text)?.[1];
  const speed = Number(/"?speed"?\s*:\s*([\d.]+)/.exec(text)?.[1] ?? 1);
  const ms = duration === undefined ? null : parseDuration(/^\d+(\.\d+)?$/.test(duration) ? Number(duration) : duration);
  return { durationMs: ms ?? DEFAULT_SCENARIO_DURATION_MS, speed: speed > 0 ? speed : 1 };
}
