-- Mailers: SMTP and IMAP configurations. Passwords and OAuth tokens are encrypted (AES-256-GCM) with a
-- key kept outside this database file; the columns hold iv, tag and ciphertext.
CREATE TABLE mailers (
  id               TEXT PRIMARY KEY,          -- mailer_id (ULID); the dispatcher's target id of an IMAP webhook
  account_id       TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  config_type      TEXT NOT NULL CHECK (config_type IN ('smtp', 'imap')),
  name             TEXT NOT NULL,
  email            TEXT NOT NULL,
  connection_type  TEXT NOT NULL CHECK (connection_type IN ('basic', 'oauth')),
  host             TEXT NOT NULL,
  port             INTEGER NOT NULL,
  username         TEXT NOT NULL,
  secure           TEXT NOT NULL,             -- Auto, Tls, SSL, None
  password_enc     BLOB,                      -- NULL: no password
  webhook          TEXT,                      -- IMAP: JSON {url, method, headers}, or NULL
  oauth_active     INTEGER NOT NULL DEFAULT 0,
  oauth_token_enc  BLOB,                      -- the stored token (JSON), NULL before a login
  oauth_meta       TEXT,                      -- JSON {app_id, token_type, scope, expires_at}: what may be shown
  status           TEXT NOT NULL,             -- SMTP: untested, ok, error; IMAP: connecting, connected, error
  last_error       TEXT,
  imap_uidvalidity INTEGER,                   -- IMAP: the inbox's UIDVALIDITY when last seen
  imap_uid_next    INTEGER,                   -- IMAP: the first UID not taken yet
  created_at       TEXT NOT NULL,
  updated_at       TEXT NOT NULL
);
CREATE INDEX mailers_account ON mailers (account_id, config_type, id);

-- Messages sent with settings.mailer_id waiting to be relayed (a row before the attempt: a restart loses none).
CREATE TABLE mailer_relays (
  ref_id     TEXT PRIMARY KEY REFERENCES messages (ref_id) ON DELETE CASCADE,
  mailer_id  TEXT NOT NULL,
  queued_ms  INTEGER NOT NULL
);

-- Every message the IMAP connector took from an inbox, as it came.
CREATE TABLE imap_messages (
  ref_id         TEXT PRIMARY KEY,            -- ULID; the ref_id of its post
  mailer_id      TEXT NOT NULL REFERENCES mailers (id) ON DELETE CASCADE,
  account_id     TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  uidvalidity    INTEGER NOT NULL,
  uid            INTEGER NOT NULL,
  message_id     TEXT NOT NULL,
  from_email     TEXT NOT NULL,
  subject        TEXT NOT NULL,
  raw            BLOB NOT NULL,
  bounce_ref_id  TEXT,                        -- a DSN about a message Mailyard sent: that message's ref_id
  delivery_id    TEXT,                        -- the delivery that posts it to the configuration's webhook
  created_ms     INTEGER NOT NULL,
  created_at     TEXT NOT NULL,
  UNIQUE (mailer_id, uidvalidity, uid)
);

-- OAuth authorization requests of the emulator's own offline authorization server.
CREATE TABLE oauth_requests (
  state         TEXT PRIMARY KEY,             -- random, in the consent URL and the redirect
  account_id    TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  app_id        TEXT NOT NULL,
  redirect_uri  TEXT,                         -- NULL: the emulator's own /oauth/callback
  mailer_id     TEXT,
  type          TEXT,
  status        TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'denied', 'used')),
  code_hash     TEXT UNIQUE,                  -- SHA-256 of the code, once approved
  created_ms    INTEGER NOT NULL,
  expires_ms    INTEGER NOT NULL
);
