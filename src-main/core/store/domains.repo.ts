import type { Db } from './database';

export type DomainStatusValue = 'pending' | 'verified' | 'failed';

export interface DomainRow {
  id: string;
  /** `domain_` + a ULID: the domain's id in the service's answers. */
  mailer_id: string;
  account_id: string;
  domain: string;
  selector: string;
  options: string;
  status: DomainStatusValue;
  reason: string | null;
  records: string;
  dkim_private_key: string;
  next_outcome: 'verified' | 'failed';
  next_reason: string | null;
  created_at: string;
  updated_at: string;
  verified_at: string | null;
  checked_at: string | null;
}

export interface DomainCheckRow {
  domain_id: string;
  mode: 'simulated' | 'real';
  status: DomainStatusValue;
  reason: string | null;
  records: string;
  checked_at: string;
}

export type DomainStatusUpdate = Pick<DomainRow, 'id' | 'status' | 'reason' | 'records' | 'updated_at' | 'verified_at' | 'checked_at'>;

export class DomainsRepo {
  private readonly stmts;

  constructor(private readonly db: Db) {
    this.stmts = {
      find: db.prepare<[string, string], DomainRow>('SELECT * FROM domains WHERE account_id = ? AND domain = ?'),
      byId: db.prepare<[string], DomainRow>('SELECT * FROM domains WHERE id = ?'),
      list: db.prepare<[string], DomainRow>('SELECT * FROM domains WHERE account_id = ? ORDER BY domain'),
      listAll: db.prepare<[], DomainRow>('SELECT * FROM domains ORDER BY domain, account_id'),
      byName: db.prepare<[string], DomainRow>('SELECT * FROM domains WHERE domain = ?'),
      byMailerId: db.prepare<[string, string], Pick<DomainRow, 'domain' | 'status'>>(
        'SELECT domain, status FROM domains WHERE account_id = ? AND mailer_id = ?',
      ),
      signing: db.prepare<[string, string], Pick<DomainRow, 'selector' | 'dkim_private_key'>>(
        "SELECT selector, dkim_private_key FROM domains WHERE account_id = ? AND domain = ? AND status = 'verified'",
      ),
      insert: db.prepare<[DomainRow]>(
        `INSERT INTO domains (id, mailer_id, account_id, domain, selector, options, status, reason, records, dkim_private_key,
           next_outcome, next_reason, created_at, updated_at, verified_at, checked_at)
         VALUES (@id, @mailer_id, @account_id, @domain, @selector, @options, @status, @reason, @records, @dkim_private_key,
           @next_outcome, @next_reason, @created_at, @updated_at, @verified_at, @checked_at)`,
      ),
      updateStatus: db.prepare<[DomainStatusUpdate]>(
        `UPDATE domains SET status = @status, reason = @reason, records = @records, updated_at = @updated_at,
           verified_at = @verified_at, checked_at = @checked_at WHERE id = @id`,
      ),
      setOutcome: db.prepare<[string, string | null, string]>('UPDATE domains SET next_outcome = ?, next_reason = ? WHERE id = ?'),
      delete: db.prepare<[string, string]>('DELETE FROM domains WHERE account_id = ? AND domain = ?'),
      insertCheck: db.prepare<[DomainCheckRow]>(
        `INSERT INTO domain_checks (domain_id, mode, status, reason, records, checked_at)
         VALUES (@domain_id, @mode, @status, @reason, @records, @checked_at)`,
      ),
      checks: db.prepare<[string, number], DomainCheckRow>('SELECT * FROM domain_checks WHERE domain_id = ? ORDER BY id DESC LIMIT ?'),
    };
  }

  find(accountId: string, domain: string): DomainRow | undefined {
    return this.stmts.find.get(accountId, domain);
  }

  findById(id: string): DomainRow | undefined {
    return this.stmts.byId.get(id);
  }

  list(accountId: string): DomainRow[] {
    return this.stmts.list.all(accountId);
  }

  listAll(): DomainRow[] {
    return this.stmts.listAll.all();
  }

  /** The domain of that name in every account that has it. */
  findByName(domain: string): DomainRow[] {
    return this.stmts.byName.all(domain);
  }

  /** The account's domain whose mailer_id this is: its name and status. */
  findByMailerId(accountId: string, mailerId: string): Pick<DomainRow, 'domain' | 'status'> | undefined {
    return this.stmts.byMailerId.get(accountId, mailerId);
  }

  /** The DKIM selector and key of the account's domain, when it is verified. */
  signingKey(accountId: string, domain: string): Pick<DomainRow, 'selector' | 'dkim_private_key'> | undefined {
    return this.stmts.signing.get(accountId, domain);
  }

  /** Returns false when the account already has this domain. */
  insert(row: DomainRow): boolean {
    try {
      this.stmts.insert.run(row);
      return true;
    } catch (err) {
      if ((err as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') return false;
      throw err;
    }
  }

  /** Records a verification: the domain's new state and its history row, in one transaction; false when the domain is gone. */
  recordCheck(update: DomainStatusUpdate, check: DomainCheckRow): boolean {
    return this.db.transaction(() => {
      if (this.stmts.updateStatus.run(update).changes !== 1) return false;
      this.stmts.insertCheck.run(check);
      return true;
    })();
  }

  setOutcome(id: string, outcome: 'verified' | 'failed', reason: string | null): void {
    this.stmts.setOutcome.run(outcome, reason, id);
  }

  /** Returns false when there was nothing to delete. */
  delete(accountId: string, domain: string): boolean {
    return this.stmts.delete.run(accountId, domain).changes === 1;
  }

  checks(domainId: string, limit: number): DomainCheckRow[] {
    return this.stmts.checks.all(domainId, limit);
  }
}
