import type { Db } from './database';
import { type MessageSearch, searchTerms } from './message-search';
import { StatementCache } from './statement-cache';

/**
 * Read state and tags of captured copies (migration 0030): what Mailpit keeps beside a message, set
 * through its API and the Messages screen, searched with is:read, is:unread and tag:.
 */
export class MessageFlagsRepo {
  private readonly stmts;
  /** Each tag rule's search, prepared once (the rules are fixed at start; each batch of copies the index takes in is judged by them). */
  private readonly ruleStatements: StatementCache;

  /** Its searches by size call the SQL function MessagesRepo defines on the same connection. */
  constructor(private readonly db: Db) {
    this.ruleStatements = new StatementCache(db);
    this.stmts = {
      setRead: db.prepare<[{ ids: string; read: number }]>(
        'UPDATE messages SET read = @read WHERE id IN (SELECT value FROM json_each(@ids)) AND read <> @read',
      ),
      setReadAll: db.prepare<[{ read: number }]>('UPDATE messages SET read = @read WHERE read <> @read'),
      unread: db.prepare<[], { n: number }>('SELECT (SELECT COUNT(*) FROM messages) - (SELECT COUNT(*) FROM messages WHERE read = 1) AS n'),
      exists: db.prepare<[string], { id: string }>('SELECT id FROM messages WHERE id = ?'),
      clearTags: db.prepare<[string]>('DELETE FROM message_tags WHERE message_id = ?'),
      addTag: db.prepare<[string, string]>('INSERT OR IGNORE INTO message_tags (message_id, tag) VALUES (?, ?)'),
      tagsOf: db.prepare<[string], { message_id: string; tag: string }>(
        'SELECT message_id, tag FROM message_tags WHERE message_id IN (SELECT value FROM json_each(?)) ORDER BY tag COLLATE NOCASE',
      ),
      tagCounts: db.prepare<[], { tag: string; n: number }>('SELECT tag, COUNT(*) AS n FROM message_tags GROUP BY tag ORDER BY tag COLLATE NOCASE'),
      taggedWith: db.prepare<[string], { message_id: string }>('SELECT message_id FROM message_tags WHERE tag = ? COLLATE NOCASE'),
      deleteTag: db.prepare<[string]>('DELETE FROM message_tags WHERE tag = ? COLLATE NOCASE'),
      addNew: db.prepare<[{ id: string; tag: string }]>(
        'INSERT INTO message_tags (message_id, tag) SELECT @id, @tag WHERE NOT EXISTS (SELECT 1 FROM message_tags WHERE message_id = @id AND tag = @tag COLLATE NOCASE)',
      ),
    };
  }

  /** Marks the copies with these ids read (or unread); ids that are no copy are skipped. Returns how many changed. */
  setRead(ids: readonly string[], read: boolean): number {
    return this.stmts.setRead.run({ ids: JSON.stringify(ids), read: read ? 1 : 0 }).changes;
  }

  setReadAll(read: boolean): number {
    return this.stmts.setReadAll.run({ read: read ? 1 : 0 }).changes;
  }

  /** Marks what the Messages search finds read (or unread). */
  setReadMatching(filter: MessageSearch, read: boolean): number {
    const { where, params } = searchTerms(filter);
    where.push('read <> @read');
    return this.db.prepare<[Record<string, unknown>]>(`UPDATE messages SET read = @read WHERE ${where.join(' AND ')}`).run({ ...params, read: read ? 1 : 0 })
      .changes;
  }

  unreadCount(): number {
    return this.stmts.unread.get()!.n;
  }

  /** Each copy's tags (in name order); a copy without a tag is absent. */
  tagsOf(ids: readonly string[]): Map<string, string[]> {
    const out = new Map<string, string[]>();
    for (const r of this.stmts.tagsOf.all(JSON.stringify(ids))) {
      const list = out.get(r.message_id);
      if (list) list.push(r.tag);
      else out.set(r.message_id, [r.tag]);
    }
    return out;
  }

  /**
   * Gives a copy exactly these tags (none: it has none left); the same name twice, in any case, is
   * kept once (the last spelling), as tag: finds tags without regard to case. False when there is no such copy.
   */
  setTags(id: string, tags: readonly string[]): boolean {
    const unique = new Map(tags.map((t) => [t.toLowerCase(), t])).values();
    return this.db.transaction(() => {
      if (!this.stmts.exists.get(id)) return false;
      this.stmts.clearTags.run(id);
      for (const tag of unique) this.stmts.addTag.run(id, tag);
      return true;
    })();
  }

  /** Adds a tag to a copy (within the caller's transaction: the copy's own write); a tag it has is kept as it is. */
  add(id: string, tag: string): void {
    this.stmts.addTag.run(id, tag);
  }

  /**
   * Tag rules: each rule's search over these copies only (by rowid), its tags added to those it finds
   * (a tag a copy has in any case is kept as it is), in one transaction. Each rule sees the tags the
   * copies came with, not another rule's.
   */
  addByRules(rowids: readonly number[], rules: ReadonlyArray<{ query: string; tags: readonly string[] }>): void {
    if (rowids.length === 0 || rules.length === 0) return;
    const found = rules.map((rule) => {
      const { where, params } = searchTerms({ q: rule.query, rowids });
      const ids = this.ruleStatements.get<{ id: string }>(`SELECT id FROM messages WHERE ${where.join(' AND ')}`).all(params);
      return { ids: ids.map((r) => r.id), tags: rule.tags };
    });
    this.db.transaction(() => {
      for (const { ids, tags } of found) for (const id of ids) for (const tag of tags) this.stmts.addNew.run({ id, tag });
    })();
  }

  /** Every tag in use with how many copies carry it, in name order. */
  tagCounts(): Array<{ tag: string; count: number }> {
    return this.stmts.tagCounts.all().map((r) => ({ tag: r.tag, count: r.n }));
  }

  /** Renames a tag on every copy (case-insensitive match; onto a name a copy already has, the two merge). Returns how many copies had it. */
  renameTag(from: string, to: string): number {
    return this.db.transaction(() => {
      const ids = this.stmts.taggedWith.all(from).map((r) => r.message_id);
      this.stmts.deleteTag.run(from);
      for (const id of ids) this.stmts.addTag.run(id, to);
      return ids.length;
    })();
  }

  deleteTag(tag: string): number {
    return this.stmts.deleteTag.run(tag).changes;
  }
}
