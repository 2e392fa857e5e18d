-- Standard Webhooks signing secret of an account (whsec_...); NULL: requests are not signed.
ALTER TABLE accounts ADD COLUMN signing_secret TEXT;

-- Emulator-wide state that must survive a restart (for example the clock's offset).
CREATE TABLE emulator_state (
  key    TEXT PRIMARY KEY,
  value  TEXT NOT NULL
);

-- The outbox: every webhook request is a row before its first attempt.
CREATE TABLE deliveries (
  id                  TEXT PRIMARY KEY,   -- ULID; sent as webhook-id on every attempt
  account_id          TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  target_kind         TEXT NOT NULL,      -- what the target is: 'webhook' now; inbound routes and IMAP webhooks later
  target_id           TEXT NOT NULL,      -- its id; the URL, method and headers are read from it at each attempt
  category            TEXT NOT NULL,      -- EMAIL_EVENT, DOMAIN_VERIFICATION, ...
  event               TEXT NOT NULL,      -- the payload's event kind
  ref_id              TEXT,
  payload             TEXT NOT NULL,      -- the JSON body, fixed at creation
  target_url          TEXT NOT NULL,      -- the URL of the latest attempt (at creation: the URL then)
  status              TEXT NOT NULL CHECK (status IN ('pending', 'sending', 'succeeded', 'failed', 'cancelled')),
  attempts            INTEGER NOT NULL DEFAULT 0,  -- all attempts, scheduled and manual
  scheduled_attempts  INTEGER NOT NULL DEFAULT 0,  -- attempts that count against the retry schedule
  next_attempt_at     INTEGER,            -- emulated epoch ms; set while pending
  last_status_code    INTEGER,
  last_error          TEXT,
  created_ms          INTEGER NOT NULL,
  created_at          TEXT NOT NULL,
  updated_at          TEXT NOT NULL
);
-- Kept lean: a status change touches only the due index. (Rows left 'sending' by a crash are found
-- by one scan at start.)
CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX deliveries_account ON deliveries (account_id, id);
CREATE INDEX deliveries_ref ON deliveries (ref_id) WHERE ref_id IS NOT NULL;
CREATE INDEX deliveries_target ON deliveries (target_id);

-- Every attempt, with what was sent and what came back.
CREATE TABLE delivery_attempts (
  delivery_id         TEXT NOT NULL REFERENCES deliveries (id) ON DELETE CASCADE,
  number              INTEGER NOT NULL,
  trigger             TEXT NOT NULL CHECK (trigger IN ('scheduled', 'manual', 'recovered')),
  outcome             TEXT NOT NULL CHECK (outcome IN ('succeeded', 'failed')),
  started_at          TEXT NOT NULL,
  duration_ms         INTEGER NOT NULL,
  request_method      TEXT NOT NULL,
  request_url         TEXT NOT NULL,
  request_headers     TEXT NOT NULL,      -- JSON object; the body sent is always the delivery's payload
  response_status     INTEGER,
  response_headers    TEXT,               -- JSON object
  response_body       TEXT,               -- the first 64 KiB
  response_truncated  INTEGER NOT NULL DEFAULT 0,
  error_code          TEXT,               -- refused, timeout, tls, dns, reset, network, interrupted, redirect
  error               TEXT,
  PRIMARY KEY (delivery_id, number)
) WITHOUT ROWID;
