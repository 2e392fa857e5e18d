-- Read state and tags of a captured copy, as Mailpit keeps them (its API, the Messages screen, the
-- search's is:read, is:unread and tag:). A new copy is unread and has no tag.
-- An OR chain, not IN: SQLite builds a temporary table for an IN list at every checking statement,
-- and every stored copy is checked.
ALTER TABLE messages ADD COLUMN read INTEGER NOT NULL DEFAULT 0 CHECK (read = 0 OR read = 1);
-- Read copies are the few a person opened: a partial index holds only them, so a new (unread) copy
-- costs no index entry; the unread count is every copy less the read ones.
CREATE INDEX messages_read ON messages (id) WHERE read = 1;

CREATE TABLE message_tags (
  message_id  TEXT NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
  tag         TEXT NOT NULL,
  PRIMARY KEY (message_id, tag)
) WITHOUT ROWID;
-- tag:x finds its copies, and the tag list is read, without reading every copy.
CREATE INDEX message_tags_tag ON message_tags (tag COLLATE NOCASE, message_id);
