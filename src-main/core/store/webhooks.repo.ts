import type { WebhookEvent, WebhookMethod } from '../../../src-shared/events';
import type { Db } from './database';

export interface WebhookRow {
  id: string;
  account_id: string;
  event: WebhookEvent;
  /** Where it posts now: for a webhook pointing at one of Mailyard's catchers, on the listener as it is now. */
  url: string;
  method: WebhookMethod;
  headers: string;
  events: string | null;
  created_at: string;
  updated_at: string;
}

/**
 * Mailyard's own listener, for the webhooks that point at one of its catchers: the catcher's path of a
 * URL on it (null for any other URL), and a path's URL on it now (null while it does not listen).
 */
export interface OwnListener {
  catcherPath(url: string): string | null;
  urlOf(path: string): string | null;
}

/** A row as stored: `catcher_path` set for a webhook that points at one of Mailyard's catchers. */
type StoredRow = WebhookRow & { catcher_path: string | null };

/**
 * The webhooks. One that points at one of Mailyard's catchers is stored as the catcher's path and read
 * as its URL on the listener now, so it follows the catcher to whatever port this data directory is
 * started on (`url` keeps the URL as it was set, for when the listener is not known).
 */
export class WebhooksRepo {
  private readonly stmts;

  constructor(
    db: Db,
    private readonly own?: OwnListener,
  ) {
    this.stmts = {
      byId: db.prepare<[string], StoredRow>('SELECT * FROM webhooks WHERE id = ?'),
      byEvent: db.prepare<[string, string], StoredRow>('SELECT * FROM webhooks WHERE account_id = ? AND event = ?'),
      list: db.prepare<[string], StoredRow>('SELECT * FROM webhooks WHERE account_id = ? ORDER BY event'),
      insert: db.prepare<[StoredRow]>(
        `INSERT INTO webhooks (id, account_id, event, url, method, headers, events, created_at, updated_at, catcher_path)
         VALUES (@id, @account_id, @event, @url, @method, @headers, @events, @created_at, @updated_at, @catcher_path)`,
      ),
      update: db.prepare<[Pick<StoredRow, 'id' | 'url' | 'method' | 'headers' | 'events' | 'updated_at' | 'catcher_path'>]>(
        'UPDATE webhooks SET url = @url, catcher_path = @catcher_path, method = @method, headers = @headers, events = @events, updated_at = @updated_at WHERE id = @id',
      ),
      delete: db.prepare<[string, string]>('DELETE FROM webhooks WHERE account_id = ? AND event = ?'),
    };
  }

  findById(id: string): WebhookRow | undefined {
    return this.read(this.stmts.byId.get(id));
  }

  find(accountId: string, event: WebhookEvent): WebhookRow | undefined {
    return this.read(this.stmts.byEvent.get(accountId, event));
  }

  list(accountId: string): WebhookRow[] {
    return this.stmts.list.all(accountId).map((row) => this.read(row)!);
  }

  /** Returns false when the account already has a webhook of that event type. */
  insert(row: WebhookRow): boolean {
    try {
      this.stmts.insert.run(this.stored(row));
      return true;
    } catch (err) {
      if ((err as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') return false;
      throw err;
    }
  }

  /** Returns false when the row no longer exists. */
  update(row: Pick<WebhookRow, 'id' | 'url' | 'method' | 'headers' | 'events' | 'updated_at'>): boolean {
    return this.stmts.update.run(this.stored(row)).changes === 1;
  }

  /** Returns false when there was nothing to delete. */
  delete(accountId: string, event: WebhookEvent): boolean {
    return this.stmts.delete.run(accountId, event).changes === 1;
  }

  /** The row as stored: a catcher's URL with its path. */
  private stored<T extends Pick<WebhookRow, 'url'>>(row: T): T & { catcher_path: string | null } {
    return { ...row, catcher_path: this.own?.catcherPath(row.url) ?? null };
  }

  /** The row as read: a catcher's path as its URL on the listener now. */
  private read(row: StoredRow | undefined): WebhookRow | undefined {
    if (!row) return undefined;
    const { catcher_path: path, ...webhook } = row;
    const now = path === null ? null : (this.own?.urlOf(path) ?? null);
    return now === null ? webhook : { ...webhook, url: now };
  }
}
