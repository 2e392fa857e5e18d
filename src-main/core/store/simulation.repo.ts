import type { Db } from './database';

export interface ScheduledEventRow {
  id: number;
  /** The copy (one recipient of a send) the event happens to. */
  message_id: string;
  event: string;
  fields: string;
  due_at: number;
}

/** The next scheduled event and the recipient of the copy it happens to. */
export interface NextScheduledEvent {
  due_at: number;
  event: string;
  message_id: string;
  recipient_email: string;
}

/** An address on an account's suppression list: what put it there (source, reason, copy) and since when. */
export interface SuppressionRow {
  email_lc: string;
  source: string;
  reason: string;
  message_id: string | null;
  created_at: string;
}

export interface RuleRow {
  position: number;
  pattern: string;
  events: string;
}

/** Scheduled simulated events, suppressions and simulation rules. */
export class SimulationRepo {
  private readonly stmts;

  constructor(private readonly db: Db) {
    this.stmts = {
      schedule: db.prepare<[Omit<ScheduledEventRow, 'id'>]>(
        'INSERT INTO scheduled_events (message_id, event, fields, due_at) VALUES (@message_id, @event, @fields, @due_at)',
      ),
      due: db.prepare<[number, number], ScheduledEventRow>('SELECT * FROM scheduled_events WHERE due_at <= ? ORDER BY due_at, id LIMIT ?'),
      removeMany: db.prepare<[string]>('DELETE FROM scheduled_events WHERE id IN (SELECT value FROM json_each(?))'),
      next: db.prepare<[], { at: number | null }>('SELECT MIN(due_at) AS at FROM scheduled_events'),
      nextEvent: db.prepare<[], NextScheduledEvent>(
        `SELECT s.due_at, s.event, s.message_id, m.recipient_email FROM scheduled_events s JOIN messages m ON m.id = s.message_id
          ORDER BY s.due_at, s.id LIMIT 1`,
      ),
      suppressed: db.prepare<[string, string], { n: number }>('SELECT 1 AS n FROM suppressions WHERE account_id = ? AND email_lc = ?'),
      suppress: db.prepare<[string, string, string, string, string, string | null]>(
        'INSERT INTO suppressions (account_id, email_lc, source, created_at, reason, message_id) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
      ),
      suppressions: db.prepare<[string], SuppressionRow>(
        'SELECT email_lc, source, reason, message_id, created_at FROM suppressions WHERE account_id = ? ORDER BY created_at DESC, email_lc',
      ),
      suppression: db.prepare<[string, string], SuppressionRow>(
        'SELECT email_lc, source, reason, message_id, created_at FROM suppressions WHERE account_id = ? AND email_lc = ?',
      ),
      unsuppress: db.prepare<[string, string]>('DELETE FROM suppressions WHERE account_id = ? AND email_lc = ?'),
      rules: db.prepare<[], RuleRow>('SELECT * FROM simulation_rules ORDER BY position'),
      clearRules: db.prepare('DELETE FROM simulation_rules'),
      insertRule: db.prepare<[RuleRow]>('INSERT INTO simulation_rules (position, pattern, events) VALUES (@position, @pattern, @events)'),
    };
  }

  schedule(row: Omit<ScheduledEventRow, 'id'>): void {
    this.stmts.schedule.run(row);
  }

  due(now: number, limit: number): ScheduledEventRow[] {
    return this.stmts.due.all(now, limit);
  }

  /** Takes these scheduled events away (a batch emitted), in one statement. */
  removeMany(ids: readonly number[]): void {
    if (ids.length > 0) this.stmts.removeMany.run(JSON.stringify(ids));
  }

  nextDue(): number | null {
    return this.stmts.next.get()!.at;
  }

  /** The earliest scheduled event (the first scheduled of those due at once), with its copy's recipient. */
  nextEvent(): NextScheduledEvent | undefined {
    return this.stmts.nextEvent.get();
  }

  isSuppressed(accountId: string, emailLc: string): boolean {
    return this.stmts.suppressed.get(accountId, emailLc) !== undefined;
  }

  /** Suppresses the address (a suppression already there stays as it was: its first cause and date). */
  suppress(accountId: string, emailLc: string, source: string, at: string, reason = '', messageId: string | null = null): void {
    this.stmts.suppress.run(accountId, emailLc, source, at, reason, messageId);
  }

  /** Lifts a suppression; false when the address was not suppressed. */
  unsuppress(accountId: string, emailLc: string): boolean {
    return this.stmts.unsuppress.run(accountId, emailLc).changes > 0;
  }

  /** The account's suppression list, newest first. */
  suppressions(accountId: string): SuppressionRow[] {
    return this.stmts.suppressions.all(accountId);
  }

  /** The account's suppression of one address, if any. */
  suppression(accountId: string, emailLc: string): SuppressionRow | undefined {
    return this.stmts.suppression.get(accountId, emailLc);
  }

  rules(): RuleRow[] {
    return this.stmts.rules.all();
  }

  replaceRules(rules: Array<Omit<RuleRow, 'position'>>): void {
    this.db.transaction(() => {
      this.stmts.clearRules.run();
      for (const [position, r] of rules.entries()) this.stmts.insertRule.run({ position, ...r });
    })();
  }
}
