-- Email templates: a subject and content whose {{variable}} placeholders a send fills per recipient.
CREATE TABLE templates (
  id          TEXT PRIMARY KEY,                -- template_ + a ULID
  account_id  TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  name        TEXT NOT NULL,
  subject     TEXT NOT NULL,
  content     TEXT NOT NULL,                   -- JSON array of {type, value}
  created_at  TEXT NOT NULL
);
CREATE INDEX templates_account ON templates (account_id, id);
