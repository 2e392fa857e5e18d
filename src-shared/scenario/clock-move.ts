/**
 * What a scenario run does to the emulator's clock, in words: the clock is one for the whole emulator
 * (every account's retries, events and timestamps run on it), a run at a speed above 1 moves it ahead
 * of the wall clock, and it is never moved back. Said before a run (the Scenarios screen) and after it
 * (its report and log).
 */

/** A span of time as a person reads it at a glance: "3 d 04 h", "2 h 05 min", "15 min 02 s", "45 s". */
export function span(ms: number): string {
  const s = Math.round(Math.abs(ms) / 1000);
  const [d, h, m] = [Math.floor(s / 86_400), Math.floor((s % 86_400) / 3600), Math.floor((s % 3600) / 60)];
  const two = (n: number) => String(n).padStart(2, '0');
  if (d > 0) return `${d} d ${two(h)} h`;
  if (h > 0) return `${h} h ${two(m)} min`;
  if (m > 0) return `${m} min ${two(s % 60)} s`;
  return `${s} s`;
}

/** How far a run moved the clock: emulated time that passed, the wall time it took, and the gap it left. */
export interface ClockMove {
  /** Emulator time that passed during the run (ms), the jumps to retries after its duration included. */
  movedMs: number;
  /** Wall time the run took (ms). */
  wallMs: number;
  /** movedMs - wallMs: how much further ahead of the wall clock the emulator clock is after the run (negative: behind). */
  aheadMs: number;
}

/** The sentence before a run: how far a scenario of this duration and clock speed will move the shared clock. */
export function clockNoteBefore(durationMs: number, speed: number): string {
  const shared = 'the emulator clock, which every account shares';
  if (speed === 1) {
    return `This scenario runs at real time: ${shared}, keeps pace with the wall clock, except that retries still due at its duration are made at once by moving the clock to each, for good.`;
  }
  const wall = durationMs / speed;
  const gap = durationMs - wall;
  return (
    `Running it moves ${shared}, ${span(durationMs)} forward in about ${span(wall)} (${speed}×): it ends about ${span(gap)} ` +
    `${gap >= 0 ? 'ahead of' : 'behind'} the wall clock, further if retries are still due at its duration. The clock is never moved back.`
  );
}

/** The sentence after a run: how far it moved the shared clock. */
export function clockMoveSentence(move: ClockMove): string {
  const gap = move.aheadMs;
  return (
    `The emulator clock, which every account shares, moved ${span(move.movedMs)} during this run (${span(move.wallMs)} of wall time): ` +
    `${Math.abs(gap) < 1000 ? 'no further from' : `${span(gap)} further ${gap > 0 ? 'ahead of' : 'behind'}`} the wall clock than before. It is not moved back.`
  );
}
