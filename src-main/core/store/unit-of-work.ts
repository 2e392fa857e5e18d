import type { Db } from './database';

/**
 * One transaction over several repositories: what a service writes to more than one of them (a
 * message's event, its log status and the event's delivery; a relay's outcome and the mailer's
 * status; a domain's check and its notification) commits together or not at all. Owned by the store,
 * so no repository opens a transaction over another's tables.
 *
 * Nesting-safe as better-sqlite3's transactions are: `run` inside `run` (or inside a repository's own
 * transaction) is a savepoint of the outer one. `fn` must be synchronous.
 */
export class UnitOfWork {
  /** One transaction wrapper for every call (better-sqlite3 builds one per `db.transaction`). */
  private readonly transaction: (fn: () => unknown) => unknown;

  constructor(db: Db) {
    this.transaction = db.transaction((fn: () => unknown) => fn());
  }

  /** Runs `fn` in one transaction (a savepoint when one is already open) and answers what it answers. */
  run<T>(fn: () => T): T {
    return this.transaction(fn) as T;
  }
}
