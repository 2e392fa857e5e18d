-- Catchers: receivers on Mailyard's own listener (/catch/{id}) that record what they receive and
-- answer as told (`mode`, JSON). `received` counts every request since creation: it numbers them and
-- decides the share of failures, whatever was dropped to stay within the bounds.
CREATE TABLE catchers (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  mode TEXT NOT NULL,
  received INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL
);
CREATE INDEX catchers_account ON catchers (account_id, id);

-- What a catcher received, newest kept (the bounds are docs/limits.md's). `size` is what the row holds
-- of the request (headers and body), for the catcher's bound on stored bytes.
CREATE TABLE catcher_requests (
  id TEXT PRIMARY KEY,
  catcher_id TEXT NOT NULL REFERENCES catchers (id) ON DELETE CASCADE,
  number INTEGER NOT NULL,
  method TEXT NOT NULL,
  path TEXT NOT NULL,
  headers TEXT NOT NULL,
  body BLOB NOT NULL,
  body_bytes INTEGER NOT NULL,
  size INTEGER NOT NULL,
  received_at TEXT NOT NULL,
  emulator_at TEXT NOT NULL,
  answered_status INTEGER NOT NULL,
  answered_because TEXT NOT NULL,
  signature TEXT NOT NULL,
  delivery_id TEXT,
  attempt INTEGER
);
CREATE INDEX catcher_requests_catcher ON catcher_requests (catcher_id, id);
CREATE INDEX catcher_requests_delivery ON catcher_requests (catcher_id, delivery_id) WHERE delivery_id IS NOT NULL;
