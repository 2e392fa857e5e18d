import { describe, expect, it } from 'vitest';
import { FreshQueue } from '../../../../src-main/core/dispatch/fresh-queue';
import { deliveryRow } from '../../../helpers/delivery-row';

const row = (id: string, event = 'delivery') => deliveryRow(id, { event, ref_id: `ref-${id}` });

describe('FreshQueue', () => {
  it('gives ids back oldest first, each with its origin, shared while it is the same', () => {
    const q = new FreshQueue();
    q.push(row('a'));
    q.push(row('b'));
    q.push(row('c', 'open'));
    expect(q.length).toBe(3);
    expect(q.take()).toBe('a');
    const first = q.origin();
    expect(first).toMatchObject({ account_id: 'acc', target_kind: 'webhook', target_id: 'wh', category: 'EMAIL_EVENT', event: 'delivery' });
    expect(q.take()).toBe('b');
    expect(q.origin()).toBe(first);
    expect(q.take()).toBe('c');
    expect(q.origin().event).toBe('open');
    expect(q.length).toBe(0);
    expect(q.take()).toBeUndefined();
  });

  it('keeps order across its compaction', () => {
    const q = new FreshQueue();
    for (let i = 0; i < 5000; i++) q.push(row(String(i)));
    const taken: string[] = [];
    for (let i = 0; i < 3000; i++) taken.push(q.take()!);
    for (let i = 5000; i < 6000; i++) q.push(row(String(i)));
    while (q.length > 0) {
      const id = q.take()!;
      taken.push(id);
      // What was kept of each stays with its id across the compaction.
      expect(q.untried('{}', 'now').ref_id).toBe(`ref-${id}`);
    }
    expect(taken).toEqual(Array.from({ length: 6000 }, (_, i) => String(i)));
  });

  it('gives back the row as it was made, claimed, with the payload the claim read', () => {
    const q = new FreshQueue();
    const made = {
      ...row('a'),
      ref_id: 'REF-1',
      next_attempt_at: 1_000,
      created_ms: 1_000,
      created_at: '2026-11-22T14:00:01.000Z',
      updated_at: '2026-11-22T14:00:01.000Z',
    };
    q.push(made);
    q.push({ ...row('b'), target_url: 'http://127.0.0.1/moved', webhook_id: 'a' });
    expect(q.take()).toBe('a');
    expect(q.untried('{"event":"delivery"}', 'later')).toEqual({ ...made, payload: '{"event":"delivery"}', status: 'sending', updated_at: 'later' });
    expect(q.take()).toBe('b');
    // A delivery made after its target moved keeps the URL it was made with.
    const b = q.untried('{}', 'later');
    expect(b.target_url).toBe('http://127.0.0.1/moved');
    // A duplicate keeps the webhook-id of the delivery it repeats.
    expect(b.webhook_id).toBe('a');
  });
});
