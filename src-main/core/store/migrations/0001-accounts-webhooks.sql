-- Accounts own every resource; each has one API key used as the Bearer token.
CREATE TABLE accounts (
  id          TEXT PRIMARY KEY,
  name        TEXT NOT NULL,
  api_key     TEXT NOT NULL UNIQUE,
  is_default  INTEGER NOT NULL DEFAULT 0 CHECK (is_default IN (0, 1)),
  created_at  TEXT NOT NULL
);
-- At most one default account (the one SMTP mail without AUTH goes to).
CREATE UNIQUE INDEX accounts_one_default ON accounts (is_default) WHERE is_default = 1;

-- At most one webhook per event type per account (spec part 2.1).
CREATE TABLE webhooks (
  id          TEXT PRIMARY KEY,
  account_id  TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  event       TEXT NOT NULL CHECK (event IN ('EMAIL_EVENT', 'DOMAIN_VERIFICATION')),
  url         TEXT NOT NULL,
  method      TEXT NOT NULL CHECK (method IN ('GET', 'POST', 'PUT', 'DELETE', 'PATCH')),
  headers     TEXT NOT NULL DEFAULT '{}',   -- JSON object of string to string
  events      TEXT,                         -- JSON object of the twelve flags; NULL for DOMAIN_VERIFICATION
  created_at  TEXT NOT NULL,
  updated_at  TEXT NOT NULL,
  UNIQUE (account_id, event)
);
