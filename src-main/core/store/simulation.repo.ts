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

export interface RuleRow {
  position: number;
  pattern: string;
  events: string;
}

/** Scheduled simulated events and simulation rules. */
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
