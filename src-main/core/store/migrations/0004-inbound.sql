-- Inbound routing: mail for a routed domain is parsed and posted to the username's URL, else the domain's.
CREATE TABLE inbound_domains (
  id          TEXT PRIMARY KEY,           -- ULID; the dispatcher's target id
  account_id  TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  domain      TEXT NOT NULL,              -- lower-cased, ASCII (IDN as punycode)
  url         TEXT NOT NULL,
  method      TEXT NOT NULL,
  headers     TEXT NOT NULL DEFAULT '{}', -- JSON object
  created_at  TEXT NOT NULL,
  updated_at  TEXT NOT NULL,
  UNIQUE (account_id, domain)
);
CREATE INDEX inbound_domains_domain ON inbound_domains (domain);

CREATE TABLE inbound_usernames (
  id          TEXT PRIMARY KEY,           -- ULID; the dispatcher's target id when it has its own URL
  domain_id   TEXT NOT NULL REFERENCES inbound_domains (id) ON DELETE CASCADE,
  username    TEXT NOT NULL,              -- lower-cased local part
  url         TEXT,                       -- NULL: the domain's URL, method and headers
  method      TEXT,
  headers     TEXT,                       -- JSON object, or NULL
  created_at  TEXT NOT NULL,
  updated_at  TEXT NOT NULL,
  UNIQUE (domain_id, username)
);

-- Every inbound email, as it came, with where it was routed.
CREATE TABLE inbound_messages (
  ref_id      TEXT PRIMARY KEY,           -- ULID
  account_id  TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  domain      TEXT NOT NULL,
  username    TEXT NOT NULL,
  source      TEXT NOT NULL CHECK (source IN ('smtp', 'api')),
  from_email  TEXT NOT NULL,
  subject     TEXT NOT NULL,
  raw         BLOB NOT NULL,
  delivery_id TEXT,                       -- the delivery that posts it
  created_ms  INTEGER NOT NULL,
  created_at  TEXT NOT NULL
);
CREATE INDEX inbound_messages_account ON inbound_messages (account_id, ref_id);
