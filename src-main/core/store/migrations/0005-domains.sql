-- Sending domains: the DNS records to publish, a DKIM key each, and the verification state.
CREATE TABLE domains (
  id               TEXT PRIMARY KEY,           -- ULID
  account_id       TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  domain           TEXT NOT NULL,              -- lower-cased, ASCII (IDN as punycode)
  selector         TEXT NOT NULL,              -- DKIM selector
  options          TEXT NOT NULL DEFAULT '{}', -- JSON: custom_args, is_tenant_domain, is_tenant_subdomain, shared_with_subaccounts, ips
  status           TEXT NOT NULL CHECK (status IN ('pending', 'verified', 'failed')),
  reason           TEXT,                       -- why the last verification failed
  records          TEXT NOT NULL,              -- JSON array of {type, host, value, status, found?, reason?}
  dkim_private_key TEXT NOT NULL,              -- PKCS#8 PEM; never leaves the emulator
  next_outcome     TEXT NOT NULL DEFAULT 'verified' CHECK (next_outcome IN ('verified', 'failed')),
  next_reason      TEXT,
  created_at       TEXT NOT NULL,
  updated_at       TEXT NOT NULL,
  verified_at      TEXT,
  checked_at       TEXT,
  UNIQUE (account_id, domain)
);
CREATE INDEX domains_domain ON domains (domain);

-- Every verification of a domain, for its history.
CREATE TABLE domain_checks (
  id          INTEGER PRIMARY KEY,
  domain_id   TEXT NOT NULL REFERENCES domains (id) ON DELETE CASCADE,
  mode        TEXT NOT NULL CHECK (mode IN ('simulated', 'real')),
  status      TEXT NOT NULL,
  reason      TEXT,
  records     TEXT NOT NULL,                   -- JSON, as in domains.records
  checked_at  TEXT NOT NULL
);
CREATE INDEX domain_checks_domain ON domain_checks (domain_id, id);
