-- The real service gives one ref_id to a whole send request, not one per recipient. Each recipient's
-- copy keeps its own key (`id`, the ULID that was its ref_id), and the send's ref_id becomes a column
-- of its own; existing copies were each their own send, so their ref_id is their id. The tables that
-- point at a copy name the column after what it holds (message_id). SQLite's RENAME COLUMN rewrites the
-- indexes and the foreign keys that name the column.
ALTER TABLE messages RENAME COLUMN ref_id TO id;
ALTER TABLE message_events RENAME COLUMN ref_id TO message_id;
ALTER TABLE scheduled_events RENAME COLUMN ref_id TO message_id;
ALTER TABLE tracking_tokens RENAME COLUMN ref_id TO message_id;
ALTER TABLE mailer_relays RENAME COLUMN ref_id TO message_id;

ALTER TABLE messages ADD COLUMN ref_id TEXT NOT NULL DEFAULT '';
-- Why the copy failed, in words ('' until it has): the email logs' failedReason.
ALTER TABLE messages ADD COLUMN failed_reason TEXT NOT NULL DEFAULT '';
-- The send's priority as given ('' when none): the email logs' priority.
ALTER TABLE messages ADD COLUMN priority TEXT NOT NULL DEFAULT '';
-- When the copy's status last changed: the email logs' updatedAt.
ALTER TABLE messages ADD COLUMN updated_at TEXT NOT NULL DEFAULT '';
UPDATE messages SET ref_id = id, updated_at = created_at;
CREATE INDEX messages_ref ON messages (ref_id, id);
CREATE INDEX messages_from ON messages (account_id, from_email COLLATE NOCASE, id);
