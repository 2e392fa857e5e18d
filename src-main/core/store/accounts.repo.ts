import type { PayloadFormat } from '../../../src-shared/payload-format';
import type { Db } from './database';

export interface AccountRow {
  id: string;
  name: string;
  api_key: string;
  is_default: number;
  created_at: string;
  signing_secret: string | null;
  /** The secret a rotation replaced, still signing until `previous_secret_until` (emulator-clock ms). */
  previous_signing_secret: string | null;
  previous_secret_until: number | null;
  /** The account's chosen webhook body shape; null: the start option's. */
  payload_format: PayloadFormat | null;
}

/** A new account: no signing secret, no chosen payload format yet. */
export type NewAccountRow = Omit<AccountRow, 'signing_secret' | 'previous_signing_secret' | 'previous_secret_until' | 'payload_format'>;

/** An account's signing secrets: the current one, and the one a rotation replaced while it still signs. */
export interface SigningSecretsRow {
  signing_secret: string | null;
  previous_signing_secret: string | null;
  previous_secret_until: number | null;
}

export class AccountsRepo {
  private readonly stmts;

  constructor(db: Db) {
    this.stmts = {
      list: db.prepare<[], AccountRow>('SELECT * FROM accounts ORDER BY is_default DESC, created_at, id'),
      byId: db.prepare<[string], AccountRow>('SELECT * FROM accounts WHERE id = ?'),
      number: db.prepare<[string], { n: number }>('SELECT number AS n FROM accounts WHERE id = ?'),
      default: db.prepare<[], AccountRow>('SELECT * FROM accounts WHERE is_default = 1 ORDER BY created_at, id LIMIT 1'),
      setSecrets: db.prepare<SigningSecretsRow & { id: string }>(
        'UPDATE accounts SET signing_secret = @signing_secret, previous_signing_secret = @previous_signing_secret, previous_secret_until = @previous_secret_until WHERE id = @id',
      ),
      setPayloadFormat: db.prepare<[PayloadFormat, string]>('UPDATE accounts SET payload_format = ? WHERE id = ?'),
      byKey: db.prepare<[string], AccountRow>('SELECT * FROM accounts WHERE api_key = ?'),
      count: db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM accounts'),
      insert: db.prepare<[NewAccountRow]>(
        'INSERT INTO accounts (id, name, api_key, is_default, created_at) VALUES (@id, @name, @api_key, @is_default, @created_at)',
      ),
    };
  }

  list(): AccountRow[] {
    return this.stmts.list.all();
  }

  findDefault(): AccountRow | undefined {
    return this.stmts.default.get();
  }

  /** The account's number (stable for its life: the email logs' `accountId`, its copies' key to it); 0 when unknown. */
  numberOf(id: string): number {
    return this.stmts.number.get(id)?.n ?? 0;
  }

  findById(id: string): AccountRow | undefined {
    return this.stmts.byId.get(id);
  }

  setSigningSecrets(id: string, secrets: SigningSecretsRow): boolean {
    return this.stmts.setSecrets.run({ id, ...secrets }).changes === 1;
  }

  setPayloadFormat(id: string, format: PayloadFormat): boolean {
    return this.stmts.setPayloadFormat.run(format, id).changes === 1;
  }

  findByKey(apiKey: string): AccountRow | undefined {
    return this.stmts.byKey.get(apiKey);
  }

  count(): number {
    return this.stmts.count.get()!.n;
  }

  insert(row: NewAccountRow): void {
    this.stmts.insert.run(row);
  }
}
