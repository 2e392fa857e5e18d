-- The composed message of one send (API or SMTP), shared by all its recipients. The raw message is
-- the one source: headers, text, HTML and attachments are parsed from it when shown.
CREATE TABLE message_contents (
  send_id      TEXT PRIMARY KEY,
  raw          BLOB NOT NULL           -- the RFC 5322 message as composed (or as received)
);

-- One row per recipient: what the email logs list.
CREATE TABLE messages (
  ref_id              TEXT PRIMARY KEY,   -- ULID, time-ordered
  account_id          TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  send_id             TEXT NOT NULL REFERENCES message_contents (send_id) ON DELETE CASCADE,
  source              TEXT NOT NULL CHECK (source IN ('api', 'smtp')),
  from_email          TEXT NOT NULL,
  from_name           TEXT NOT NULL,
  recipient_email     TEXT NOT NULL,
  recipient_lc        TEXT NOT NULL,      -- lower-cased, for the email filter
  recipient_domain    TEXT NOT NULL,      -- lower-cased
  recipient_name      TEXT NOT NULL,
  recipient_type      TEXT NOT NULL CHECK (recipient_type IN ('to', 'cc', 'bcc')),
  subject             TEXT NOT NULL,
  campaign_id         TEXT NOT NULL,
  mailer_id           TEXT NOT NULL,
  custom_args         TEXT NOT NULL,      -- JSON object
  status              TEXT NOT NULL CHECK (status IN ('queued', 'delivered', 'deferred', 'bounced', 'rejected', 'failed', 'suppressed')),
  created_ms          INTEGER NOT NULL,
  created_at          TEXT NOT NULL,
  delivered_ms        INTEGER,
  delivered_at        TEXT
);
-- The logs list newest first (by ref_id) within an account; each filter has an index that keeps that order.
CREATE INDEX messages_account ON messages (account_id, ref_id);
CREATE INDEX messages_recipient ON messages (account_id, recipient_lc, ref_id);
CREATE INDEX messages_domain ON messages (account_id, recipient_domain, ref_id);
CREATE INDEX messages_campaign ON messages (account_id, campaign_id, ref_id);
CREATE INDEX messages_campaign_status ON messages (account_id, campaign_id, status, ref_id);
CREATE INDEX messages_status ON messages (account_id, status, ref_id);

-- What happened to each message, in order.
CREATE TABLE message_events (
  ref_id      TEXT NOT NULL REFERENCES messages (ref_id) ON DELETE CASCADE,
  seq         INTEGER NOT NULL,
  event       TEXT NOT NULL,
  timestamp   TEXT NOT NULL,
  delivery_id TEXT,                     -- the webhook delivery that carried it, if one did
  PRIMARY KEY (ref_id, seq)
) WITHOUT ROWID;

-- Simulated events waiting for their time on the emulator clock.
CREATE TABLE scheduled_events (
  id          INTEGER PRIMARY KEY,
  ref_id      TEXT NOT NULL REFERENCES messages (ref_id) ON DELETE CASCADE,
  event       TEXT NOT NULL,
  fields      TEXT NOT NULL DEFAULT '{}', -- JSON payload fields of the simulation (bounce type, reason...)
  due_at      INTEGER NOT NULL            -- emulated epoch ms
);
CREATE INDEX scheduled_events_due ON scheduled_events (due_at);

-- Addresses that get no mail: unsubscribed through the API, a link or an unsubscribe event.
CREATE TABLE suppressions (
  account_id  TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  email_lc    TEXT NOT NULL,
  source      TEXT NOT NULL,
  created_at  TEXT NOT NULL,
  PRIMARY KEY (account_id, email_lc)
) WITHOUT ROWID;

-- Simulation rules, in the order they are tried.
CREATE TABLE simulation_rules (
  position    INTEGER PRIMARY KEY,
  pattern     TEXT NOT NULL,
  events      TEXT NOT NULL               -- JSON array of {event, delay_ms, fields?}
);

-- Tracking links of a message: the open pixel, each rewritten link, the unsubscribe link. A click
-- token redirects only to the URL it was made for (no open redirect).
CREATE TABLE tracking_tokens (
  token       TEXT PRIMARY KEY,
  ref_id      TEXT NOT NULL REFERENCES messages (ref_id) ON DELETE CASCADE,
  kind        TEXT NOT NULL CHECK (kind IN ('open', 'click', 'unsubscribe')),
  url         TEXT,
  link_name   TEXT
) WITHOUT ROWID;
CREATE INDEX tracking_tokens_ref ON tracking_tokens (ref_id);
