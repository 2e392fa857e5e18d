import type { Db } from './database';

/**
 * One transaction over several repositories: what a service writes to more than one of them (a
 * message's event, its log status and the event's delivery; a relay's outcome and the mailer's
 * status; a domain's check and its notification) commits together or not at all. Owned by the store,
 * so no repository opens a transaction over another's tables.
 *
 * A unit of work run while a transaction is open (a batch of simulated events, each recorded in a unit
 * of its own) joins it: its writes commit, or roll back, with the outer one's. No savepoint: a
 * savepoint copies every page its writes touch first, for a rollback nothing here asks for.
 * `fn` must be synchronous.
 */
export class UnitOfWork {
  /** One transaction wrapper for every call (better-sqlite3 builds one per `db.transaction`). */
  private readonly transaction: (fn: () => unknown) => unknown;

  constructor(private readonly db: Db) {
    this.transaction = db.transaction((fn: () => unknown) => fn());
  }

  /** Runs `fn` in one transaction (the open one, when there is one) and answers what it answers. */
  run<T>(fn: () => T): T {
    return this.db.inTransaction ? fn() : (this.transaction(fn) as T);
  }
}
