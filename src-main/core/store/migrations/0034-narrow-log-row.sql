-- mailyard: rebuilds-tables
-- The email log's row and its index entries, narrower: each index entry of a copy held its account's
-- id and its own (two 26-character ULIDs) to keep the logs' order. An account now has a number (its
-- rowid before, the logs' accountId already) and a copy a key (its rowid, which the search indexes
-- already name it by); the indexes hold the account's number and the creation time, and SQLite adds
-- the key: newest first is the order of creation time, then of the key. The public ids stay as they
-- were, in a column of their own, for the API to show and find.

CREATE TABLE accounts_new (
  number      INTEGER PRIMARY KEY,        -- the account's number: the email logs' accountId, its copies' key to it
  id          TEXT NOT NULL UNIQUE,       -- ULID: what the API shows, and what the other tables name it by
  name        TEXT NOT NULL,
  api_key     TEXT NOT NULL UNIQUE,
  is_default  INTEGER NOT NULL DEFAULT 0 CHECK (is_default = 0 OR is_default = 1),
  created_at  TEXT NOT NULL,
  signing_secret          TEXT,
  payload_format          TEXT CHECK (payload_format = 'spec' OR payload_format = 'mailer-events'),
  previous_signing_secret TEXT,
  previous_secret_until   INTEGER
);
INSERT INTO accounts_new (number, id, name, api_key, is_default, created_at, signing_secret, payload_format, previous_signing_secret, previous_secret_until)
  SELECT rowid, id, name, api_key, is_default, created_at, signing_secret, payload_format, previous_signing_secret, previous_secret_until FROM accounts;
DROP TABLE accounts;
ALTER TABLE accounts_new RENAME TO accounts;
CREATE UNIQUE INDEX accounts_one_default ON accounts (is_default) WHERE is_default = 1;

CREATE TABLE messages_new (
  key                 INTEGER PRIMARY KEY,   -- the copy's own key, in the order copies were stored (the search indexes' rowid)
  id                  TEXT NOT NULL UNIQUE,  -- ULID: the copy's id as the API shows it
  account_number      INTEGER NOT NULL REFERENCES accounts (number) ON DELETE CASCADE,
  content_id          TEXT NOT NULL REFERENCES message_contents (content_id) ON DELETE CASCADE,
  ref_id              TEXT NOT NULL,         -- the send's, shared by its copies
  source              TEXT NOT NULL CHECK (source = 'api' OR source = 'smtp'),
  from_email          TEXT NOT NULL,
  from_name           TEXT NOT NULL,
  recipient_email     TEXT NOT NULL,
  recipient_lc        TEXT NOT NULL,         -- lower-cased, for the email filter
  recipient_domain    TEXT NOT NULL,         -- lower-cased
  recipient_name      TEXT NOT NULL,
  recipient_type      TEXT NOT NULL CHECK (recipient_type = 'to' OR recipient_type = 'cc' OR recipient_type = 'bcc'),
  subject             TEXT NOT NULL,
  campaign_id         TEXT NOT NULL,
  mailer_id           TEXT NOT NULL,
  custom_args         TEXT NOT NULL,         -- JSON object
  status              TEXT NOT NULL CHECK (status = 'queued' OR status = 'sent' OR status = 'delivered' OR status = 'opened' OR status = 'clicked' OR status = 'bounced' OR status = 'failed' OR status = 'spam' OR status = 'unsubscribed'),
  failed_reason       TEXT NOT NULL DEFAULT '',
  priority            TEXT NOT NULL DEFAULT '',
  created_ms          INTEGER NOT NULL,
  created_at          TEXT NOT NULL,
  delivered_ms        INTEGER,
  delivered_at        TEXT,
  updated_at          TEXT NOT NULL DEFAULT '',
  patch               BLOB,                  -- the edits that make this copy from its send's content (byte-patch.ts)
  read                INTEGER NOT NULL DEFAULT 0 CHECK (read = 0 OR read = 1),
  size                INTEGER                -- its raw message's length; null for copies stored before the column
);
INSERT INTO messages_new (key, id, account_number, content_id, ref_id, source, from_email, from_name, recipient_email, recipient_lc,
    recipient_domain, recipient_name, recipient_type, subject, campaign_id, mailer_id, custom_args, status, failed_reason, priority,
    created_ms, created_at, delivered_ms, delivered_at, updated_at, patch, read, size)
  SELECT m.rowid, m.id, a.number, m.content_id, m.ref_id, m.source, m.from_email, m.from_name, m.recipient_email, m.recipient_lc,
    m.recipient_domain, m.recipient_name, m.recipient_type, m.subject, m.campaign_id, m.mailer_id, m.custom_args, m.status, m.failed_reason, m.priority,
    m.created_ms, m.created_at, m.delivered_ms, m.delivered_at, m.updated_at, m.patch, m.read, m.size
  FROM messages m JOIN accounts a ON a.id = m.account_id;
DROP TABLE messages;
ALTER TABLE messages_new RENAME TO messages;

-- Each filter of the logs keeps their order (creation time, then key) within an account, and its
-- date window is a range of the index.
CREATE INDEX messages_account ON messages (account_number, created_ms);
CREATE INDEX messages_recipient ON messages (account_number, recipient_lc, created_ms);
CREATE INDEX messages_domain ON messages (account_number, recipient_domain, created_ms);
CREATE INDEX messages_campaign ON messages (account_number, campaign_id, created_ms);
CREATE INDEX messages_campaign_status ON messages (account_number, campaign_id, status, created_ms);
CREATE INDEX messages_status ON messages (account_number, status, created_ms);
CREATE INDEX messages_from ON messages (account_number, from_email COLLATE NOCASE, created_ms);
CREATE INDEX messages_subject ON messages (account_number, subject, created_ms);
-- Every account's copies in the same order (the captured messages' list across accounts).
CREATE INDEX messages_created ON messages (created_ms);
CREATE INDEX messages_ref ON messages (ref_id, account_number, created_ms);
CREATE INDEX messages_content ON messages (content_id);
CREATE INDEX messages_read ON messages (created_ms) WHERE read = 1;

CREATE TRIGGER messages_search_delete AFTER DELETE ON messages BEGIN
  DELETE FROM message_search WHERE rowid = old.key;
END;
CREATE TRIGGER messages_addresses_delete AFTER DELETE ON messages BEGIN
  DELETE FROM message_addresses WHERE rowid = old.key;
END;
CREATE TRIGGER messages_search_pending AFTER INSERT ON messages BEGIN
  INSERT INTO search_pending (message_rowid) VALUES (new.key);
END;
CREATE TRIGGER messages_search_pending_delete AFTER DELETE ON messages BEGIN
  DELETE FROM search_pending WHERE message_rowid = old.key;
END;
