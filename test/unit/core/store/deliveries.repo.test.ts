import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../../../src-main/core/store/database';
import { type AttemptRow, DeliveriesRepo, type DeliveryUpdate } from '../../../../src-main/core/store/deliveries.repo';
import { deliveryRow } from '../../../helpers/delivery-row';

function store(): { db: Database.Database; repo: DeliveriesRepo } {
  const db = new Database(':memory:');
  migrate(db);
  db.prepare("INSERT INTO accounts (id, name, api_key, is_default, created_at) VALUES ('acc', 'Default', 'key-0123456789', 1, 'now')").run();
  return { db, repo: new DeliveriesRepo(db) };
}

const delivery = (id: string, nextAttemptAt: number) => deliveryRow(id, { payload: `{"n":"${id}"}`, next_attempt_at: nextAttemptAt });

describe('DeliveriesRepo.claimUntried', () => {
  it('claims a delivery only while it is pending, due and untried, and reads back its payload alone', () => {
    const { repo } = store();
    repo.insert(delivery('due', 10));
    repo.insert(delivery('later', 50));
    // Tried by hand while pending: its fields are no longer those it was made with.
    repo.insert({ ...delivery('tried', 10), attempts: 1 });

    expect(repo.claimUntried('later', 20, 'now')).toBeUndefined();
    expect(repo.claimUntried('tried', 20, 'now')).toBeUndefined();
    expect(repo.claimUntried('missing', 20, 'now')).toBeUndefined();
    expect(repo.get('later')!.status).toBe('pending');
    expect(repo.get('tried')!.status).toBe('pending');

    expect(repo.claimUntried('due', 20, 'now')).toBe('{"n":"due"}');
    expect(repo.get('due')).toMatchObject({ status: 'sending', updated_at: 'now' });
    // Claimed already: a second claim finds nothing.
    expect(repo.claimUntried('due', 20, 'again')).toBeUndefined();
    expect(repo.get('due')!.updated_at).toBe('now');
  });
});

function attempt(deliveryId: string, number: number, body: string): AttemptRow {
  return {
    delivery_id: deliveryId,
    number,
    trigger: 'scheduled',
    outcome: 'failed',
    started_at: 'now',
    duration_ms: 1,
    request_method: 'POST',
    request_url: 'http://127.0.0.1/hooks',
    request_headers: '{}',
    response_status: 500,
    response_headers: '{}',
    response_body: body,
    response_truncated: 0,
    error_code: null,
    error: null,
  };
}

const update = (id: string, attempts: number): DeliveryUpdate => ({
  id,
  status: 'pending',
  attempts,
  scheduled_attempts: attempts,
  next_attempt_at: 1,
  target_url: 'http://127.0.0.1/hooks',
  last_status_code: 500,
  last_error: 'HTTP 500',
  updated_at: 'now',
});

describe('DeliveriesRepo.writeAttempt', () => {
  it("cuts the delivery's earlier response bodies once a later attempt is recorded, and no other delivery's", () => {
    const { repo } = store();
    repo.insert(delivery('a', 0));
    repo.insert(delivery('b', 0));
    const page = (n: number) => `${n}:${'é'.repeat(5000)}`;
    repo.writeAttempt(attempt('b', 1, page(0)), update('b', 1), 10);
    repo.writeAttempt(attempt('a', 1, page(1)), update('a', 1), 10);
    expect(repo.attempts('a')[0]).toMatchObject({ response_body: page(1), response_truncated: 0 });
    repo.writeAttempt(attempt('a', 2, page(2)), update('a', 2), 10);
    repo.writeAttempt(attempt('a', 3, 'short'), update('a', 3), 10);
    expect(repo.attempts('a').map((a) => [a.response_body, a.response_truncated])).toEqual([
      [page(1).slice(0, 10), 1],
      [page(2).slice(0, 10), 1],
      ['short', 0],
    ]);
    expect(repo.attempts('b')[0]).toMatchObject({ response_body: page(0), response_truncated: 0 });
    expect(repo.get('a')).toMatchObject({ attempts: 3, last_error: 'HTTP 500' });
  });
});

describe('DeliveriesRepo.detail and list', () => {
  it('reads a payload whole up to the bytes asked for, else its first characters, always with its size in bytes', () => {
    const { repo } = store();
    const small = JSON.stringify({ recipient: { email: 'ann@example.com' }, n: 'ü'.repeat(10) });
    const large = JSON.stringify({ recipient: { email: 'bob@example.com' }, subject: 's'.repeat(2000), n: 'ü'.repeat(100) });
    repo.insert(deliveryRow('small', { payload: small }));
    repo.insert(deliveryRow('large', { payload: large }));
    expect(repo.detail('small', 100)).toMatchObject({ payload_head: small, payload_bytes: Buffer.byteLength(small), recipient: 'ann@example.com' });
    const d = repo.detail('large', 100)!;
    expect(d).toMatchObject({ payload_head: large.slice(0, 100), payload_bytes: Buffer.byteLength(large), recipient: 'bob@example.com' });
    expect(d.subject).toHaveLength(998);
    expect(repo.detail('missing', 100)).toBeUndefined();

    // A list reads no payload; the payload's subject is cut to a subject line.
    const listed = repo.list({ limit: 10 });
    expect(listed.map((r) => r.id)).toEqual(['small', 'large']);
    expect(listed.every((r) => !('payload' in r))).toBe(true);
    expect(listed[1]!.subject).toBe('s'.repeat(998));
    expect(repo.payload('large')!.toString('utf8')).toBe(large);
  });
});
