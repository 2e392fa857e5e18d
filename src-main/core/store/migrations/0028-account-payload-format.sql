-- The shape of an account's email event webhook bodies, when the account chose one: 'spec' or
-- 'mailer-events' (the newer webhooks guide's). NULL: the one given at start (--payload-format).
ALTER TABLE accounts ADD COLUMN payload_format TEXT CHECK (payload_format IN ('spec', 'mailer-events'));
