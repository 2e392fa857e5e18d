-- Each sending domain gets a mailer_id: `domain_` + a ULID, stable for the domain's life. The real
-- service names a domain by it (the answer of addDomain and getDomain; a send's `mailer_id` may name it).
-- Domains added before this migration get one here: a ULID whose time part is the domain's created_at
-- (milliseconds since the epoch, 10 characters of Crockford base32) and whose 16 other characters are
-- random, as a ULID's are. New domains get theirs from the service when they are added.
ALTER TABLE domains ADD COLUMN mailer_id TEXT NOT NULL DEFAULT '';
UPDATE domains SET mailer_id = 'domain_' ||
  substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', ((CAST(round((julianday(created_at) - 2440587.5) * 86400000) AS INTEGER) >> 45) & 31) + 1, 1) ||
  substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', ((CAST(round((julianday(created_at) - 2440587.5) * 86400000) AS INTEGER) >> 40) & 31) + 1, 1) ||
  substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', ((CAST(round((julianday(created_at) - 2440587.5) * 86400000) AS INTEGER) >> 35) & 31) + 1, 1) ||
  substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', ((CAST(round((julianday(created_at) - 2440587.5) * 86400000) AS INTEGER) >> 30) & 31) + 1, 1) ||
  substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', ((CAST(round((julianday(created_at) - 2440587.5) * 86400000) AS INTEGER) >> 25) & 31) + 1, 1) ||
  substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', ((CAST(round((julianday(created_at) - 2440587.5) * 86400000) AS INTEGER) >> 20) & 31) + 1, 1) ||
  substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', ((CAST(round((julianday(created_at) - 2440587.5) * 86400000) AS INTEGER) >> 15) & 31) + 1, 1) ||
  substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', ((CAST(round((julianday(created_at) - 2440587.5) * 86400000) AS INTEGER) >> 10) & 31) + 1, 1) ||
  substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', ((CAST(round((julianday(created_at) - 2440587.5) * 86400000) AS INTEGER) >> 5) & 31) + 1, 1) ||
  substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', ((CAST(round((julianday(created_at) - 2440587.5) * 86400000) AS INTEGER) >> 0) & 31) + 1, 1) ||
  substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', (random() & 31) + 1, 1) ||
  substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', (random() & 31) + 1, 1) ||
  substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', (random() & 31) + 1, 1) ||
  substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', (random() & 31) + 1, 1) ||
  substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', (random() & 31) + 1, 1) ||
  substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', (random() & 31) + 1, 1) ||
  substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', (random() & 31) + 1, 1) ||
  substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', (random() & 31) + 1, 1) ||
  substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', (random() & 31) + 1, 1) ||
  substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', (random() & 31) + 1, 1) ||
  substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', (random() & 31) + 1, 1) ||
  substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', (random() & 31) + 1, 1) ||
  substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', (random() & 31) + 1, 1) ||
  substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', (random() & 31) + 1, 1) ||
  substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', (random() & 31) + 1, 1) ||
  substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', (random() & 31) + 1, 1)
WHERE mailer_id = '';
CREATE UNIQUE INDEX domains_mailer_id ON domains (mailer_id);
