-- What the real service would have refused in a send Mailyard took (its X-Mailyard-Warning words,
-- core/would-refuse.ts): one row per send that had any, none for the others, so a send without a
-- warning writes nothing more. Every copy of the send shows them (the message detail reads the row by
-- the copy's ref_id). The row goes with the account, or when the send's last copy is deleted.
CREATE TABLE send_warnings (
  ref_id          TEXT PRIMARY KEY,  -- the send's (messages.ref_id)
  account_number  INTEGER NOT NULL REFERENCES accounts (number) ON DELETE CASCADE,
  warnings        TEXT NOT NULL      -- JSON array of strings, in the order the header says them
);

-- Asked only of copies whose send has warnings (a lookup in this small table), then whether any copy is left.
CREATE TRIGGER messages_send_warnings_delete AFTER DELETE ON messages
WHEN EXISTS (SELECT 1 FROM send_warnings WHERE ref_id = old.ref_id)
BEGIN
  DELETE FROM send_warnings WHERE ref_id = old.ref_id AND NOT EXISTS (SELECT 1 FROM messages WHERE ref_id = old.ref_id);
END;

-- The inbound guide's rule that decided each inbound email (services/inbound/inbound-rules.ts), by its
-- name, and the mail it refused: a refused recipient gets a row too, with why (`refused`, starting with
-- the rule's name), no delivery and no bytes (refused mail is not kept). Rows stored before this
-- migration have no rule (NULL).
ALTER TABLE inbound_messages ADD COLUMN rule TEXT;
ALTER TABLE inbound_messages ADD COLUMN refused TEXT;  -- NULL: accepted and posted
