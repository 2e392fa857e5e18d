-- Read state and tags of a captured copy, as Mailpit keeps them (its API, the Messages screen, the
-- search's is:read, is:unread and tag:). A new copy is unread and has no tag.
ALTER TABLE messages ADD COLUMN read INTEGER NOT NULL DEFAULT 0 CHECK (read IN (0, 1));
-- Unread copies are few and counted often (Mailpit's `unread`): a partial index holds only them.
CREATE INDEX messages_unread ON messages (id) WHERE read = 0;

CREATE TABLE message_tags (
  message_id  TEXT NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
  tag         TEXT NOT NULL,
  PRIMARY KEY (message_id, tag)
) WITHOUT ROWID;
-- tag:x finds its copies, and the tag list is read, without reading every copy.
CREATE INDEX message_tags_tag ON message_tags (tag COLLATE NOCASE, message_id);
