import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../src-main/core/store/database';
import { DeliveriesRepo } from '../../src-main/core/store/deliveries.repo';
import { deliveryRow } from '../helpers/delivery-row';

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
