import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EmulatorClock } from '../../../src-main/core/clock';

let wall = 1_000_000;
beforeEach(() => {
  vi.useFakeTimers();
  wall = 1_000_000;
});
afterEach(() => vi.useRealTimers());

/** Moves wall time and runs the real timers due by then. */
function passWall(ms: number) {
  wall += ms;
  vi.advanceTimersByTime(ms);
}

describe('EmulatorClock', () => {
  it('is wall time plus the offset at speed 1', () => {
    const clock = new EmulatorClock(500, () => wall);
    expect(clock.now()).toBe(1_000_500);
    passWall(100);
    expect(clock.now()).toBe(1_000_600);
  });

  it('its state says its offset exactly, even when the wall clock moves between two readings (a busy machine)', () => {
    // Every reading of the wall clock is 9 ms after the one before.
    let ticking = 1_000_000;
    const clock = new EmulatorClock(1_000, () => (ticking += 9));
    clock.advance(1_000);
    expect(clock.state().offsetMs).toBe(2_000);
  });

  it('runs at its speed, and 0 pauses it', () => {
    const clock = new EmulatorClock(0, () => wall);
    clock.setSpeed(60);
    passWall(1_000);
    expect(clock.now()).toBe(1_000_000 + 60_000);
    clock.setSpeed(0);
    passWall(5_000);
    expect(clock.now()).toBe(1_060_000);
  });

  it('fires a timer when emulated time reaches it, scaled by the speed', () => {
    const clock = new EmulatorClock(0, () => wall);
    const fired = vi.fn();
    clock.setTimer(1_000_000 + 10_000, fired);
    clock.setSpeed(10);
    passWall(999);
    expect(fired).not.toHaveBeenCalled();
    passWall(1);
    expect(fired).toHaveBeenCalledTimes(1);
  });

  it('fires due timers on a jump, and only those', () => {
    const clock = new EmulatorClock(0, () => wall);
    clock.setSpeed(0);
    const soon = vi.fn();
    const later = vi.fn();
    clock.setTimer(1_000_000 + 5_000, soon);
    clock.setTimer(1_000_000 + 3_600_000, later);
    passWall(60_000);
    expect(soon).not.toHaveBeenCalled();
    clock.advance(5_000);
    vi.advanceTimersByTime(0);
    expect(soon).toHaveBeenCalledTimes(1);
    expect(later).not.toHaveBeenCalled();
  });

  it('cancels a timer', () => {
    const clock = new EmulatorClock(0, () => wall);
    const fired = vi.fn();
    const cancel = clock.setTimer(1_000_100, fired);
    cancel();
    passWall(1_000);
    expect(fired).not.toHaveBeenCalled();
  });

  it('waits past the longest setTimeout without firing early', () => {
    const clock = new EmulatorClock(0, () => wall);
    const fired = vi.fn();
    const thirtyDays = 30 * 24 * 3600 * 1000;
    clock.setTimer(1_000_000 + thirtyDays, fired);
    passWall(2 ** 31 - 1);
    expect(fired).not.toHaveBeenCalled();
    passWall(thirtyDays - (2 ** 31 - 1));
    expect(fired).toHaveBeenCalledTimes(1);
  });

  it('never goes back, and tells listeners of changes', () => {
    const clock = new EmulatorClock(0, () => wall);
    const seen: number[] = [];
    clock.onChange((s) => seen.push(s.offsetMs));
    expect(() => clock.advance(-1)).toThrow(RangeError);
    expect(() => clock.setSpeed(-2)).toThrow(RangeError);
    expect(() => clock.setSpeed(Number.NaN)).toThrow(RangeError);
    clock.advance(1_000);
    expect(seen).toEqual([1_000]);
  });
});
