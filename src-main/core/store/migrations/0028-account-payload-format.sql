-- The shape of an account's email event webhook bodies, when the account chose one: 'spec' or
-- 'mailer-events' (the newer webhooks guide's). NULL: the one given at start (--payload-format).
-- An OR chain, not IN: SQLite builds a temporary table for an IN list at every checking statement.
ALTER TABLE accounts ADD COLUMN payload_format TEXT CHECK (payload_format = 'spec' OR payload_format = 'mailer-events');
