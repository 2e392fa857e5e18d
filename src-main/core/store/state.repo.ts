import type { Db } from './database';

/** Small emulator-wide values that must survive a restart. */
export class StateRepo {
  private readonly stmts;

  constructor(db: Db) {
    this.stmts = {
      get: db.prepare<[string], { value: string }>('SELECT value FROM emulator_state WHERE key = ?'),
      set: db.prepare<[string, string]>('INSERT INTO emulator_state (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value'),
    };
  }

  get(key: string): string | undefined {
    return this.stmts.get.get(key)?.value;
  }

  set(key: string, value: string): void {
    this.stmts.set.run(key, value);
  }
}
