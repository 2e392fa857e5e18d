-- A relay the server refuses for now (a 4xx reply, or no connection at all) is tried again later, as
-- an MTA would, instead of failing at once.
ALTER TABLE mailer_relays ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;   -- attempts made so far
ALTER TABLE mailer_relays ADD COLUMN next_ms INTEGER NOT NULL DEFAULT 0;    -- emulated epoch ms of the next attempt
ALTER TABLE mailer_relays ADD COLUMN last_reply TEXT;                       -- the reply of the last temporary failure
UPDATE mailer_relays SET next_ms = queued_ms;
