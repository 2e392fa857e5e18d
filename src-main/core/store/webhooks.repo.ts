import type { WebhookEvent, WebhookMethod } from '../../../src-shared/events';
import type { Db } from './database';

export interface WebhookRow {
  id: string;
  account_id: string;
  event: WebhookEvent;
  url: string;
  method: WebhookMethod;
  headers: string;
  events: string | null;
  created_at: string;
  updated_at: string;
}

export class WebhooksRepo {
  private readonly stmts;

  constructor(db: Db) {
    this.stmts = {
      byId: db.prepare<[string], WebhookRow>('SELECT * FROM webhooks WHERE id = ?'),
      byEvent: db.prepare<[string, string], WebhookRow>('SELECT * FROM webhooks WHERE account_id = ? AND event = ?'),
      list: db.prepare<[string], WebhookRow>('SELECT * FROM webhooks WHERE account_id = ? ORDER BY event'),
      insert: db.prepare<[WebhookRow]>(
        `INSERT INTO webhooks (id, account_id, event, url, method, headers, events, created_at, updated_at)
         VALUES (@id, @account_id, @event, @url, @method, @headers, @events, @created_at, @updated_at)`,
      ),
      update: db.prepare<[Pick<WebhookRow, 'id' | 'url' | 'method' | 'headers' | 'events' | 'updated_at'>]>(
        'UPDATE webhooks SET url = @url, method = @method, headers = @headers, events = @events, updated_at = @updated_at WHERE id = @id',
      ),
      delete: db.prepare<[string, string]>('DELETE FROM webhooks WHERE account_id = ? AND event = ?'),
    };
  }

  findById(id: string): WebhookRow | undefined {
    return this.stmts.byId.get(id);
  }

  find(accountId: string, event: WebhookEvent): WebhookRow | undefined {
    return this.stmts.byEvent.get(accountId, event);
  }

  list(accountId: string): WebhookRow[] {
    return this.stmts.list.all(accountId);
  }

  /** Returns false when the account already has a webhook of that event type. */
  insert(row: WebhookRow): boolean {
    try {
      this.stmts.insert.run(row);
      return true;
    } catch (err) {
      if ((err as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') return false;
      throw err;
    }
  }

  /** Returns false when the row no longer exists. */
  update(row: Pick<WebhookRow, 'id' | 'url' | 'method' | 'headers' | 'events' | 'updated_at'>): boolean {
    return this.stmts.update.run(row).changes === 1;
  }

  /** Returns false when there was nothing to delete. */
  delete(accountId: string, event: WebhookEvent): boolean {
    return this.stmts.delete.run(accountId, event).changes === 1;
  }
}
