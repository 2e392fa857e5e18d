import { describe, expect, it } from 'vitest';
import { DELIVERY_FILTER_LABEL, deliveryState, inFlightNote, isInFlightOrDue } from '../../../../src-renderer/components/delivery-state';
import { isLater, withLaterRows } from '../../../../src-renderer/stores/delivery-rows';
import type { DeliverySummary } from '../../../../src-shared/schemas/dispatch';

const NOW = Date.parse('2026-03-04T14:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

function delivery(over: Partial<DeliverySummary> = {}): DeliverySummary {
  return {
    id: '01JDELIVERY0000000000000001',
    account_id: 'acc',
    category: 'EMAIL_EVENT',
    event: 'bounce',
    ref_id: null,
    recipient: 'ann@example.com',
    subject: 'Hello',
    target: { kind: 'webhook', id: 'w1', url: 'http://127.0.0.1:3000/hooks' },
    status: 'pending',
    attempts: 0,
    next_attempt_at: iso(NOW + 60_000),
    last_status_code: null,
    last_error: null,
    created_at: iso(NOW - 1000),
    updated_at: iso(NOW - 1000),
    ...over,
  };
}

describe('a delivery state in words', () => {
  it('an attempt in flight reads "sending" with its number, whatever the next-attempt time says', () => {
    const s = deliveryState(delivery({ status: 'sending', attempts: 2, next_attempt_at: null }), NOW);
    expect(s).toMatchObject({ name: 'sending', inFlight: true, attempt: 3, note: 'attempt 3 in flight', next: null });
  });

  it('a pending delivery whose time is past reads "due now", never "1 h ago"', () => {
    const anHourAgo = delivery({ attempts: 1, next_attempt_at: iso(NOW - 3_600_000) });
    const s = deliveryState(anHourAgo, NOW);
    expect(s.next).toEqual({ kind: 'due' });
    expect(s.note).toBe('retry 2 due now');
    expect(s.note).not.toMatch(/ago/);
    expect(isInFlightOrDue(anHourAgo, NOW)).toBe(true);
    // The UI's estimate of the emulator's now may lag a moment: a time just ahead is due too.
    expect(deliveryState(delivery({ next_attempt_at: iso(NOW + 1000) }), NOW).note).toBe('first attempt due now');
  });

  it('a scheduled attempt keeps its time; pending after a failed attempt is "failing", before any is "pending"', () => {
    const first = deliveryState(delivery(), NOW);
    expect(first).toMatchObject({ name: 'pending', inFlight: false, next: { kind: 'scheduled', at: iso(NOW + 60_000) }, note: null });
    expect(isInFlightOrDue(delivery(), NOW)).toBe(false);
    const retry = deliveryState(delivery({ attempts: 1, last_status_code: 500 }), NOW);
    expect(retry).toMatchObject({ name: 'failing', attempt: 2, next: { kind: 'scheduled' } });
    // The list filter says the same word for that state.
    expect(DELIVERY_FILTER_LABEL.failing).toContain(retry.name);
  });

  it('finished deliveries have no next attempt', () => {
    for (const status of ['succeeded', 'failed', 'cancelled'] as const) {
      const s = deliveryState(delivery({ status, attempts: 1, next_attempt_at: null }), NOW);
      expect(s).toMatchObject({ name: status, inFlight: false, next: null, note: null });
      expect(isInFlightOrDue(delivery({ status, next_attempt_at: null }), NOW)).toBe(false);
    }
  });

  it("the clock answer's attempts in flight, when it says any", () => {
    expect(inFlightNote({ now: 'x', in_flight: 2 })).toBe('2 attempts still in flight');
    expect(inFlightNote({ in_flight: 1 })).toBe('1 attempt still in flight');
    expect(inFlightNote({ in_flight: 0 })).toBeNull();
    expect(inFlightNote({ now: 'x' })).toBeNull();
    expect(inFlightNote(null)).toBeNull();
  });
});

describe('rows updated from a fresh read', () => {
  it('the claim of a due attempt replaces the pending row, even at the same instant (a paused clock)', () => {
    const due = delivery({ attempts: 1, next_attempt_at: iso(NOW - 1000) });
    const claimed = { ...due, status: 'sending' as const, next_attempt_at: null, recipient: undefined, subject: undefined };
    expect(isLater(due, claimed)).toBe(true);
    const rows = withLaterRows([due], [claimed]);
    expect(rows[0]).toMatchObject({ status: 'sending', recipient: 'ann@example.com', subject: 'Hello' });
  });

  it('a stale read never takes an outcome back to "sending"', () => {
    const claimed = delivery({ status: 'sending', attempts: 1, next_attempt_at: null, updated_at: iso(NOW) });
    const done = { ...claimed, status: 'succeeded' as const, attempts: 2, updated_at: iso(NOW) };
    expect(isLater(done, claimed)).toBe(false);
    const rows = [done];
    expect(withLaterRows(rows, [claimed])).toBe(rows);
    const later = { ...done, updated_at: iso(NOW + 5) };
    expect(isLater(claimed, later)).toBe(true);
  });
});
